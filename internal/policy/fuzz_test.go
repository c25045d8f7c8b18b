package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/policy"
)

// FuzzDenialMessage: whatever a policy's message holds, a denial's
// message is valid UTF-8, one line without control characters, and at
// most MaxMessageBytes.
func FuzzDenialMessage(f *testing.F) {
	dir := f.TempDir()
	require.NoError(f, os.WriteFile(filepath.Join(dir, "p.rego"), []byte("package main\n\ndeny contains input.m\n"), 0o600))
	set, err := policy.Load(context.Background(), dir, policy.Context{})
	require.NoError(f, err)
	f.Add("plain")
	f.Add("two\nlines\r\u2028x")
	f.Add(string([]byte{0xff, 0xfe, 'a'}))
	f.Fuzz(func(t *testing.T, m string) {
		ds, _, err := set.Check(context.Background(), map[string]any{"m": m})
		require.NoError(t, err)
		for _, d := range ds {
			require.True(t, utf8.ValidString(d.Message), "message %q", d.Message)
			require.LessOrEqual(t, len(d.Message), policy.MaxMessageBytes)
			for _, r := range d.Message {
				require.False(t, unicode.IsControl(r) || r == '\u2028' || r == '\u2029', "control character in %q", d.Message)
			}
		}
	})
}
