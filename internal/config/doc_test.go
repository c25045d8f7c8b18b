package config

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestConfigurationDocMatchesSettings: docs/configuration.md's settings
// table lists exactly the declared settings, in declaration order, with
// each one's type and default (issue 12: the table is checked against the
// declarations, so the two cannot drift).
func TestConfigurationDocMatchesSettings(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `--([a-z0-9-]+)` \\| ([^|]*) \\| ([a-z]+) \\|")
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		names = append(names, m[1])
		s, ok := Lookup(m[1])
		if !ok {
			t.Errorf("docs/configuration.md documents --%s, which is no setting", m[1])
			continue
		}
		if m[3] != s.Kind.TypeName() {
			t.Errorf("--%s: documented type %q, declared %q", s.Name, m[3], s.Kind.TypeName())
		}
		def := strings.TrimSpace(m[2])
		switch {
		case s.Required:
			if def != "**required**" {
				t.Errorf("--%s: required, documented default %q", s.Name, def)
			}
		case s.Default != "":
			if def != "`"+s.Default+"`" {
				t.Errorf("--%s: documented default %s, declared `%s`", s.Name, def, s.Default)
			}
		case strings.HasPrefix(def, "`"):
			t.Errorf("--%s: documented default %s, declared none", s.Name, def)
		}
	}
	var want []string
	for _, s := range Settings {
		want = append(want, s.Name)
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("docs/configuration.md's settings table lists\n  %v\nthe declarations are\n  %v", names, want)
	}
}

// TestEverySettingBindsItsKind: each declaration's bind accepts a value of
// its Kind (a mismatch would panic at run time) and fills a field.
func TestEverySettingBindsItsKind(t *testing.T) {
	sample := map[Kind]string{KindString: "eu-west-1", KindBool: "true", KindInt: "7", KindDuration: "1m", KindSize: "1KiB", KindTags: "team=platform"}
	for _, s := range Settings {
		var o Options
		v := sample[s.Kind]
		if s.Default != "" {
			v = s.Default
		}
		switch s.Name {
		case SecretPrefix:
			v = "team/app"
		case KMSKeyID:
			v = "alias/app-secrets"
		}
		if _, ok := s.set(&o, v); !ok {
			t.Errorf("--%s rejects a sample value of its kind", s.Name)
		}
	}
}
