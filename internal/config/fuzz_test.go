package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseConfig: the config file parser never panics, and no problem text
// quotes a value from the file: only setting-like key words (lower-case,
// digits, dashes; echoed so a misspelt key can be found), line numbers and
// fixed reasons.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"", "log-level: info\n", "a: b\n", "- x\n", "{", "recovery-window-days: 7\nconcurrency: 0x10\n",
		"x: &a 1\ny: *a\n", "log-level: [1, 2]\n", "---\n---\n", "max-encrypted-bytes: 12\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, probs := parseConfig(data)
		for _, p := range probs {
			if p.Setting != "" && !strings.HasPrefix(p.Setting, "at line ") {
				_, ok := Lookup(p.Setting)
				require.True(t, ok || validKeyText(p.Setting), "problem quotes text that is no setting-like key: %q", p.Setting)
			}
		}
	})
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"8MiB", "1", "0B", "9223372036854775807", "8589934592GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		require.False(t, err == nil && n < 0, "negative size %d", n)
	})
}
