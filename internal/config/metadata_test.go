package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

func TestMetadataSettingsUnsetAreNotManaged(t *testing.T) {
	o, err := Resolve(base())
	require.NoError(t, err)
	assert.Equal(t, model.Metadata{}, o.Engine.Metadata)
	assert.Nil(t, o.Engine.MaxDeletions, "no limit by default")
}

func TestMetadataSettingsFromEachSource(t *testing.T) {
	in := base()
	in.Flags[KMSKeyID] = "alias/app-secrets"
	in.Flags[Description] = "from owner/repo"
	in.Flags[Tag] = "team=platform\nenv=prod=eu" // what the repeated flag records
	in.Flags[MaxDeletions] = "2"
	o, err := Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, model.Metadata{KMSKeyID: "alias/app-secrets", Description: "from owner/repo",
		Tags: map[string]string{"team": "platform", "env": "prod=eu"}}, o.Engine.Metadata, "the key ends at the first =")
	require.NotNil(t, o.Engine.MaxDeletions)
	assert.Equal(t, 2, *o.Engine.MaxDeletions)

	// Environment: one pair per line (the Action's multi-line input), CRLF tolerated.
	in = base()
	in.Environ = []string{EnvName(Tag) + "=team=platform\r\n\r\ncost=42\n", EnvName(MaxDeletions) + "=0"}
	o, err = Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"team": "platform", "cost": "42"}, o.Engine.Metadata.Tags)
	assert.Equal(t, 0, *o.Engine.MaxDeletions, "0 forbids every deletion")

	// Config file: a mapping of strings (numbers quoted, like any text setting).
	in = base()
	in.Flags[ConfigFile] = "c.yaml"
	in.ReadFile = func(string) ([]byte, error) {
		return []byte("tag:\n  team: platform\n  cost: \"42\"\n  empty: \"\"\nkms-key-id: " + "1234abcd-12ab-34cd-56ef-1234567890ab\n"), nil
	}
	o, err = Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"team": "platform", "cost": "42", "empty": ""}, o.Engine.Metadata.Tags)
	assert.Equal(t, "1234abcd-12ab-34cd-56ef-1234567890ab", o.Engine.Metadata.KMSKeyID)

	// Precedence: the flag's set replaces the file's, it is not merged.
	in.Flags[Tag] = "env=prod"
	o, err = Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"env": "prod"}, o.Engine.Metadata.Tags)
}

// TestReservedOrInvalidTagRejectedWithoutEcho: issue 14 item 1, every rule
// checked before any AWS call, the setting named and the value never echoed.
func TestReservedOrInvalidTagRejectedWithoutEcho(t *testing.T) {
	const canary = "CANARY-91f2"
	many := make([]string, 0, 48)
	for i := 0; i < 48; i++ {
		many = append(many, "k"+strings.Repeat("x", i)+"="+canary)
	}
	for name, raw := range map[string]string{
		"aws prefix":       "aws:team=" + canary,
		"AWS prefix":       "AWS:" + canary + "=v",
		"ownership prefix": "sops-aws-sync:scope=" + canary,
		"bad character":    canary + ";x=v",
		"long key":         strings.Repeat("k", 129) + "=" + canary,
		"long value":       "k=" + canary + strings.Repeat("v", 256),
		"no equals":        canary,
		"duplicate key":    "k=" + canary + "\nk=" + canary,
		"too many":         strings.Join(many, "\n"),
	} {
		t.Run(name, func(t *testing.T) {
			in := base()
			in.Flags[Tag] = raw
			_, err := Resolve(in)
			ps := problems(t, err)
			require.Len(t, ps, 1)
			assert.Equal(t, Tag, ps[0].Subject.Setting)
			assert.NotContains(t, ps[0].Line(), canary)
			assert.Contains(t, []string{string(ClassInvalidValue), string(ClassWrongType)}, ps[0].Class)
		})
	}
	for setting, raw := range map[string]string{
		KMSKeyID:     canary,
		Description:  strings.Repeat(canary, 300),
		MaxDeletions: "-1",
	} {
		in := base()
		in.Flags[setting] = raw
		_, err := Resolve(in)
		ps := problems(t, err)
		require.Len(t, ps, 1, setting)
		assert.Equal(t, setting, ps[0].Subject.Setting)
		assert.NotContains(t, ps[0].Line(), canary)
	}
	// A file mapping that cannot be tags is the wrong type.
	in := base()
	in.Flags[ConfigFile] = "c.yaml"
	in.ReadFile = func(string) ([]byte, error) { return []byte("tag: team=" + canary + "\n"), nil }
	_, err := Resolve(in)
	ps := problems(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, ClassWrongType, ps[0].Class)
	assert.NotContains(t, ps[0].Line(), canary)
}

func FuzzParseTags(f *testing.F) {
	for _, s := range []string{"a=b", "a=b\nc=d", "a", "=b", "a==b\r\n", "\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, reason := ParseTags(s)
		if reason != "" {
			require.Nil(t, m, "a rejection returns no map")
			return
		}
		require.NotEmpty(t, m, "an accepted value holds a pair")
		for k, v := range m {
			require.False(t, strings.Contains(k, "=") || strings.ContainsAny(k+v, "\n"), "pair %q=%q: a key holds =, or a newline survived", k, v)
		}
	})
}
