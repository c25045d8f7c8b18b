package config

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Exact edges of the config file's rules, each pinned where a neighbouring
// value would be treated otherwise.

// TestUnknownKeyIsEchoedOnlyWhenItLooksLikeASetting: an unknown config key
// is named in the diagnostic only when it could be a setting's name (1 to
// 40 bytes of a-z, 0-9, "-", "_"); any other key is named by its line, so
// a value pasted as a key is never echoed. Every edge of the character
// ranges and of the length is tried.
func TestUnknownKeyIsEchoedOnlyWhenItLooksLikeASetting(t *testing.T) {
	const head = "repository-id: a/b\nsecret-prefix: x\n"
	for _, key := range []string{strings.Repeat("q", 40), "a", "z", "q0", "q9", "q-", "q_", "azq09-_"} {
		d := onlyProblem(t, withFile("sync", head+key+": 1\n", nil))
		assert.Equal(t, ClassUnknownKey, d.Class, key)
		assert.Equal(t, "config file key "+key, d.Subject.Name(), "%q is echoed", key)
	}
	for _, key := range []string{strings.Repeat("q", 41), "q`", "q{", "q/", "q:", "qA", "q.", "q~"} {
		d := onlyProblem(t, withFile("sync", head+key+": 1\n", nil))
		assert.Equal(t, ClassUnknownKey, d.Class, key)
		assert.Equal(t, "config file key at line 3", d.Subject.Name(), "%q is not echoed", key)
	}
}

// TestSizeRangeIsExactlyInt64: the largest size of each unit whose byte
// count fits an int64 is accepted (math.MaxInt64 bytes itself, and
// ⌊MaxInt64/1024⌋ KiB); one more is out of range.
func TestSizeRangeIsExactlyInt64(t *testing.T) {
	for in, want := range map[string]int64{
		"9223372036854775807":  math.MaxInt64,
		"9223372036854775807B": math.MaxInt64,
		"9007199254740991KiB":  math.MaxInt64 / 1024 * 1024,
		"8796093022207MiB":     math.MaxInt64 / (1 << 20) * (1 << 20),
		"8589934591GiB":        math.MaxInt64 / (1 << 30) * (1 << 30),
	} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"9223372036854775808", "9007199254740992KiB", "8796093022208MiB", "8589934592GiB"} {
		_, err := ParseSize(in)
		assert.ErrorIs(t, err, errSizeRange, in)
	}
}

// TestConfigFileSizeCapIsInclusive: a config file of exactly
// MaxConfigFileBytes is read (here refused only for holding no
// settings); one byte more is refused for its size, before parsing.
func TestConfigFileSizeCapIsInclusive(t *testing.T) {
	pad := func(n int) []byte { return bytes.Repeat([]byte(" "), n) }
	_, ps := parseConfig(pad(MaxConfigFileBytes))
	require.Len(t, ps, 1)
	assert.Equal(t, ReasonNoSettings, ps[0].Reason)
	_, ps = parseConfig(pad(MaxConfigFileBytes + 1))
	require.Len(t, ps, 1)
	assert.Contains(t, ps[0].Reason, "is larger than")
}

// TestSettingLengthAndSizeEdges: --repository-id takes up to 256 bytes
// (257 refused); --max-encrypted-bytes takes 1 byte (0 refused).
func TestSettingLengthAndSizeEdges(t *testing.T) {
	for _, c := range []struct {
		flag, value string
		ok          bool
	}{
		{RepositoryID, strings.Repeat("r", 256), true},
		{RepositoryID, strings.Repeat("r", 257), false},
		{MaxEncryptedBytes, "1", true},
		{MaxEncryptedBytes, "0", false},
		{MaxEncryptedBytes, "0KiB", false},
	} {
		in := base()
		in.Flags[c.flag] = c.value
		o, err := Resolve(in)
		if !c.ok {
			d := onlyProblem(t, in)
			assert.Equal(t, ClassInvalidValue, d.Class, "%s=%.8s…", c.flag, c.value)
			continue
		}
		require.NoError(t, err, "%s=%.8s…", c.flag, c.value)
		if c.flag == RepositoryID {
			assert.Equal(t, c.value, o.Desired.RepositoryID)
		} else {
			assert.Equal(t, int64(1), o.Desired.MaxEncryptedBytes)
		}
	}
}

// TestNearestLimitIsAThirdOfTheName: "did you mean" offers a name within
// a third of the typed name's length (at least 1, at most 3) and no
// further; an exact match is no suggestion; a tie goes to the earlier name.
func TestNearestLimitIsAThirdOfTheName(t *testing.T) {
	for _, c := range []struct {
		name  string
		names []string
		want  string
	}{
		{"ab", []string{"xy", "ax"}, "ax"},                   // limit 1
		{"ab", []string{"xy"}, ""},                           // 2 > 1
		{"abcdef", []string{"abcdxy"}, "abcdxy"},             // limit 2
		{"abcdef", []string{"abcxyz"}, ""},                   // 3 > 2
		{"abcdefghi", []string{"abcdefxyz"}, "abcdefxyz"},    // limit 3
		{"abcdefghi", []string{"abcdewxyz"}, ""},             // 4 > 3
		{"abcdefghijklmno", []string{"abcdefghijkwxyz"}, ""}, // limit stays 3
		{"abcdefghijklmno", []string{"abcdefghijklxyz"}, "abcdefghijklxyz"},
		{"abc", []string{"abc", "abd"}, "abd"},     // 0 is no typo
		{"abcd", []string{"abcx", "abcy"}, "abcx"}, // the earlier of a tie
		{"abcd", []string{"abxy", "abcy"}, "abcy"}, // the nearer, wherever it is
	} {
		assert.Equal(t, c.want, Nearest(c.name, c.names), "%q in %q", c.name, c.names)
	}
}

// TestDefaults_EveryDeclaredDefaultIsSetRequiredOnesEmpty: Defaults holds
// each declared default (--repository ".", --revision HEAD, source-root
// "secrets") and leaves a setting without one empty (repository-id).
func TestDefaults_EveryDeclaredDefaultIsSetRequiredOnesEmpty(t *testing.T) {
	o := Defaults()
	assert.Equal(t, ".", o.Desired.RepoPath)
	assert.Equal(t, "HEAD", o.Desired.Revision)
	assert.Equal(t, "secrets", o.Desired.SourceRoot)
	assert.Empty(t, o.Desired.RepositoryID)
}

// TestOneOffArgs: the flags of a one-off run of a listed scope start with
// --scope NAME; the default scope's are the flags alone.
func TestOneOffArgs(t *testing.T) {
	assert.Equal(t, "--allow-deletions", OneOffArgs("", "--allow-deletions"))
	assert.Equal(t, "--scope prod-eu --allow-deletions", OneOffArgs("prod-eu", "--allow-deletions"))
}
