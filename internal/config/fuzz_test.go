package config

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// scopeLabel is how a problem names a part of scopes: (scopes[0].name,
// scopes.prod-eu.secret-prefix): a scope name that passed the name rule or
// an index, then a setting-like key word.
var scopeLabel = regexp.MustCompile(`^scopes(\[[0-9]+\]|\.[a-z0-9-]{1,32})?(\.[a-z0-9_-]{1,40})?$`)

// FuzzParseConfig: the config file parser (top-level settings and the
// scopes: list) never panics, and no problem text quotes a value from the
// file: only setting-like key words (lower-case, digits, dashes; echoed so
// a misspelt key can be found), scope names that follow the name rule,
// entry indexes, line numbers and fixed reasons.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"", "log-level: info\n", "a: b\n", "- x\n", "{", "recovery-window-days: 7\nconcurrency: 0x10\n",
		"x: &a 1\ny: *a\n", "log-level: [1, 2]\n", "---\n---\n", "max-encrypted-bytes: 12\n",
		"scopes:\n  - name: a\n    secret-prefix: p\n  - name: b\n    tags: {x: y}\n",
		"scopes: [{name: A}, {name: a, name: b}, 3, {concurrency: 2}]\n", "scopes: {}\nscopes: []\n",
		"tags: {a: b}\ntag: {c: d}\nscopes:\n  - name: x\n    \"\\x00\": 1\n    role-arn: arn:aws:iam::111111111111:role/r\n",
		"replica-regions: [us-west-2, 'eu-central-1=alias/a']\nkey-services: age,pgp\nadopt: a/b,c/d\n",
		"key-services: [age, [pgp]]\nscopes:\n  - name: a\n    replica-regions: ['a,b', '']\n    adopt: []\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fc, probs := parseConfig(data)
		for _, p := range probs {
			if p.Setting != "" && !strings.HasPrefix(p.Setting, "at line ") && !scopeLabel.MatchString(p.Setting) {
				_, ok := Lookup(p.Setting)
				require.True(t, ok || validKeyText(p.Setting), "problem quotes text that is no setting-like key: %q", p.Setting)
			}
		}
		// A comma list read from the file is the same raw value as the
		// YAML sequence of its items (kinds' commaListFor): both forms
		// reach the setting's parser alike.
		for k, v := range fc.values {
			if s, _ := Lookup(k); s.Kind != KindCommaList || strings.ContainsAny(v, "\n\r") || v == "" {
				continue
			}
			seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for _, item := range strings.Split(v, ",") {
				seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: item})
			}
			got, ok := commaListFor(seq)
			require.True(t, ok, "the items of %q as a sequence are refused", v)
			require.Equal(t, v, got)
		}
		for _, e := range fc.scopes {
			require.True(t, scopeLabel.MatchString(e.label), "entry label %q", e.label)
			for k := range e.values {
				s, ok := Lookup(k)
				require.True(t, ok && s.PerScope, "a scope entry kept %q, which is no per-scope setting", k)
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

// FuzzPolicyLabels: --policy-labels gives labels that are trimmed, not
// empty, at most 255 bytes, without a comma or a control character, at
// most 100; or an error and no label.
func FuzzPolicyLabels(f *testing.F) {
	f.Add("a, b,,c")
	f.Add("allow-prod-deletion")
	f.Add("x\ny")
	f.Add(strings.Repeat("a,", 101))
	f.Fuzz(func(t *testing.T, raw string) {
		labels, err := policyLabels(raw)
		if err != nil {
			require.Nil(t, labels)
			return
		}
		require.LessOrEqual(t, len(labels), 100)
		for _, l := range labels {
			require.NotEmpty(t, l)
			require.Equal(t, strings.TrimSpace(l), l)
			require.LessOrEqual(t, len(l), 255)
			require.NotContains(t, l, ",")
			for _, r := range l {
				require.False(t, r < 0x20 || r == 0x7f, "control character in %q", l)
			}
		}
	})
}
