package config

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigurationDocMatchesSettings: docs/configuration.md's settings
// table lists exactly the declared settings, in declaration order, with
// each one's type and default (issue 12: the table is checked against the
// declarations, so the two cannot drift).
func TestConfigurationDocMatchesSettings(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	require.NoError(t, err)
	row := regexp.MustCompile("^\\| `--([a-z0-9-]+)` \\| ([^|]*) \\| ([a-z]+) \\|")
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		names = append(names, m[1])
		s, ok := Lookup(m[1])
		if !assert.True(t, ok, "docs/configuration.md documents --%s, which is no setting", m[1]) {
			continue
		}
		assert.Equal(t, s.Kind.TypeName(), m[3], "--%s: documented type", s.Name)
		def := strings.TrimSpace(m[2])
		switch {
		case s.Required:
			assert.Equal(t, "**required**", def, "--%s: required, documented default", s.Name)
		case s.Default != "":
			assert.Equal(t, "`"+s.Default+"`", def, "--%s: documented default", s.Name)
		default:
			assert.False(t, strings.HasPrefix(def, "`"), "--%s: documented default %s, declared none", s.Name, def)
		}
	}
	var want []string
	for _, s := range Settings {
		want = append(want, s.Name)
	}
	assert.Equal(t, want, names, "docs/configuration.md's settings table lists other settings, or in another order, than the declarations")
}

// TestEverySettingBindsItsKind: each declaration's bind accepts a value of
// its Kind (a mismatch would panic at run time) and fills a field.
func TestEverySettingBindsItsKind(t *testing.T) {
	sample := map[Kind]string{KindString: "eu-west-1", KindBool: "true", KindInt: "7", KindDuration: "1m", KindSize: "1KiB", KindTags: "team=platform", KindList: "team/app/db", KindCommaList: "us-west-2,eu-central-1", KindAWSOwned: `[{"secret":"db/*","keys":["/password"],"generate":32}]`}
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
		case RoleARN, PlanRoleARN:
			v = "arn:aws:iam::111111111111:role/secrets-sync"
		case ScopeFilter:
			v = "prod-eu,staging"
		}
		_, ok := s.set(&o, v)
		assert.True(t, ok, "--%s rejects a sample value of its kind", s.Name)
	}
}

// TestRegression_ConfigurationDocListsEveryPerScopeSetting: issue 44 §4.
// docs/configuration.md's list of the settings a scope entry may set left
// out plan-role-arn, target and parameter-tier, which every scope may set.
// The list under "may set the **per-scope** settings:" is exactly the
// declarations with PerScope, in declaration order (`tags`, the YAML
// spelling of `tag`, aside), and a row of the settings table says
// "**per scope**" exactly when its setting is.
func TestRegression_ConfigurationDocListsEveryPerScopeSetting(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	require.NoError(t, err)
	doc := string(data)
	const lead = "may set the **per-scope** settings:"
	i := strings.Index(doc, lead)
	require.GreaterOrEqual(t, i, 0, "docs/configuration.md lost the line %q", lead)
	list := doc[i+len(lead):]
	list = list[:strings.Index(list, "```")]
	var listed []string
	for _, m := range regexp.MustCompile("`([a-z0-9-]+)`").FindAllStringSubmatch(list, -1) {
		if m[1] != "tags" {
			listed = append(listed, m[1])
		}
	}
	var want []string
	for _, s := range Settings {
		if s.PerScope {
			want = append(want, s.Name)
		}
	}
	assert.Equal(t, want, listed, "docs/configuration.md's per-scope list and the declarations with PerScope")

	row := regexp.MustCompile("^\\| `--([a-z0-9-]+)` \\| [^|]* \\| [a-z]+ \\| (.*)$")
	for _, line := range strings.Split(doc, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s, ok := Lookup(m[1])
		if !ok {
			continue // TestConfigurationDocMatchesSettings fails on it
		}
		assert.Equal(t, s.PerScope, strings.HasPrefix(m[2], "**per scope**"), "--%s: the row says **per scope** exactly when the setting is", s.Name)
	}
}
