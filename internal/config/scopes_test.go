package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// withFile is an Input for command with --config naming body and the given
// extra flags.
func withFile(command, body string, flags map[string]string) Input {
	in := Input{Command: command, Flags: map[string]string{ConfigFile: "cfg.yaml"}}
	for k, v := range flags {
		in.Flags[k] = v
	}
	in.ReadFile = func(string) ([]byte, error) { return []byte(body), nil }
	return in
}

const estate = `repository-id: acme/payments
tags: {team: payments}
recovery-window-days: 14
concurrency: 4
scopes:
  - name: prod-eu
    source-root: secrets/prod
    secret-prefix: prod/payments
    aws-region: eu-west-1
    role-arn: arn:aws:iam::111111111111:role/secrets-sync
    max-deletions: 2
  - name: staging
    source-root: secrets/staging
    secret-prefix: staging/payments/
    aws-region: eu-central-1
    role-arn: arn:aws:iam::222222222222:role/secrets-sync
    tag: {team: payments, env: staging}
    allow-empty: true
    recovery-window-days: 7
    kms-key-id: alias/staging
    description: staging secrets
  - name: dev
    secret-prefix: dev/payments
`

func TestScopesTopLevelKeysAreDefaults(t *testing.T) {
	o, err := Resolve(withFile("sync", estate, nil))
	require.NoError(t, err)
	require.Len(t, o.Scopes, 3)
	prod, staging, dev := o.Scopes[0], o.Scopes[1], o.Scopes[2]
	assert.Equal(t, []string{"prod-eu", "staging", "dev"}, []string{prod.Name, staging.Name, dev.Name}, "config order")

	assert.Equal(t, "secrets/prod", prod.Desired.SourceRoot)
	assert.Equal(t, "prod/payments", prod.Desired.SecretPrefix)
	assert.Equal(t, "eu-west-1", prod.AWS.Region)
	assert.Equal(t, "arn:aws:iam::111111111111:role/secrets-sync", prod.AWS.RoleARN)
	assert.Equal(t, 14, prod.Engine.RecoveryWindowDays, "top-level default")
	assert.Equal(t, map[string]string{"team": "payments"}, prod.Engine.Metadata.Tags, "top-level tags (the SPEC's spelling tags:)")
	require.NotNil(t, prod.Engine.MaxDeletions)
	assert.Equal(t, 2, *prod.Engine.MaxDeletions)

	assert.Equal(t, "staging/payments", staging.Desired.SecretPrefix, "the prefix rule applies per scope")
	assert.Equal(t, map[string]string{"team": "payments", "env": "staging"}, staging.Engine.Metadata.Tags, "a scope's tag set replaces the default set")
	assert.True(t, staging.Engine.AllowEmpty)
	assert.Equal(t, 7, staging.Engine.RecoveryWindowDays)
	assert.Equal(t, "alias/staging", staging.Engine.Metadata.KMSKeyID)
	assert.Equal(t, "staging secrets", staging.Engine.Metadata.Description)
	assert.Nil(t, staging.Engine.MaxDeletions, "no limit unless given")

	assert.Equal(t, "secrets", dev.Desired.SourceRoot, "the default source root")
	assert.Empty(t, dev.AWS.Region, "the SDK chain's Region")
	assert.Empty(t, dev.AWS.RoleARN, "the SDK chain's credentials")

	for _, s := range o.Scopes {
		assert.True(t, s.Listed)
		assert.Equal(t, "acme/payments", s.Desired.RepositoryID)
		assert.Equal(t, 4, s.Engine.Concurrency, "non-per-scope settings are the run's")
		assert.Equal(t, 4, s.AWS.Concurrency)
		assert.Equal(t, 4, s.Desired.Concurrency)
	}
	prod.Engine.Metadata.Tags["x"] = "y"
	assert.NotContains(t, dev.Engine.Metadata.Tags, "x", "scopes share no tag map")
	assert.Equal(t, "scopes.staging.role-arn", staging.SettingName(RoleARN))
}

func TestNoScopesIsOneScopeNamedDefault(t *testing.T) {
	in := base()
	in.Flags[RoleARN] = "arn:aws:iam::111111111111:role/secrets-sync"
	in.Flags[AWSRegion] = "eu-west-1"
	o, err := Resolve(in)
	require.NoError(t, err)
	require.Len(t, o.Scopes, 1)
	s := o.Scopes[0]
	assert.Equal(t, model.DefaultScopeName, s.Name)
	assert.False(t, s.Listed)
	assert.Equal(t, o.Desired, s.Desired)
	assert.Equal(t, o.Engine, s.Engine)
	assert.Equal(t, o.AWS, s.AWS)
	assert.Equal(t, "arn:aws:iam::111111111111:role/secrets-sync", s.AWS.RoleARN, "--role-arn is a setting of single-scope runs too")
	assert.Equal(t, RoleARN, s.SettingName(RoleARN))
}

// Moving from one job per scope to one run changes no ownership identity:
// each scope of a multi-scope config has exactly the scope digest, tags and
// per-scope settings of a single-scope run with the same settings.
func TestScopesHaveTheIdentityOfSingleScopeRuns(t *testing.T) {
	multi, err := Resolve(withFile("sync", estate, nil))
	require.NoError(t, err)
	singles := []map[string]string{
		{SourceRoot: "secrets/prod", SecretPrefix: "prod/payments", AWSRegion: "eu-west-1", RoleARN: "arn:aws:iam::111111111111:role/secrets-sync", MaxDeletions: "2"},
		{SourceRoot: "secrets/staging", SecretPrefix: "staging/payments/", AWSRegion: "eu-central-1", RoleARN: "arn:aws:iam::222222222222:role/secrets-sync",
			AllowEmpty: "true", RecoveryWindowDays: "7", KMSKeyID: "alias/staging", Description: "staging secrets"},
		{SecretPrefix: "dev/payments"},
	}
	tags := [][]string{{"team=payments"}, {"env=staging", "team=payments"}, {"team=payments"}}
	require.Len(t, multi.Scopes, len(singles))
	digests := map[string]bool{}
	for i, flags := range singles {
		in := Input{Command: "sync", Flags: map[string]string{RepositoryID: "acme/payments", Concurrency: "4", Tag: strings.Join(tags[i], "\n")}}
		if _, ok := flags[RecoveryWindowDays]; !ok {
			in.Flags[RecoveryWindowDays] = "14"
		}
		for k, v := range flags {
			in.Flags[k] = v
		}
		one, err := Resolve(in)
		require.NoError(t, err)
		got, want := multi.Scopes[i], one.Scopes[0]
		assert.Equal(t, want.Identity().Digest(), got.Identity().Digest(), "scope %s: digest", got.Name)
		assert.Equal(t, want.Identity().Tags("secrets/x.sops.json"), got.Identity().Tags("secrets/x.sops.json"), "scope %s: ownership tags", got.Name)
		assert.Equal(t, want.Desired, got.Desired, "scope %s", got.Name)
		assert.Equal(t, want.Engine, got.Engine, "scope %s", got.Name)
		assert.Equal(t, want.AWS, got.AWS, "scope %s", got.Name)
		digests[got.Identity().Digest()] = true
	}
	assert.Len(t, digests, 3, "three scopes, three identities")
}

// onlyProblem resolves in and returns its only diagnostic.
func onlyProblem(t *testing.T, in Input) diag.Diagnostic {
	t.Helper()
	_, err := Resolve(in)
	ps := problems(t, err)
	require.Len(t, ps, 1, "%v", ps)
	assert.Equal(t, vocab.ExitInvalid, ps.ExitCode())
	return ps[0]
}

// A per-scope setting given as a flag or variable while scopes: is set
// would apply to every scope: exit 3, naming where it was given.
func TestPerScopeFlagOrEnvWithScopesIsAmbiguous(t *testing.T) {
	for flag, val := range map[string]string{SecretPrefix: "x/y", AWSRegion: "eu-west-1", RoleARN: "arn:aws:iam::111111111111:role/r", Tag: "a=b", AllowEmpty: "true"} {
		d := onlyProblem(t, withFile("plan", estate, map[string]string{flag: val}))
		assert.Equal(t, diag.ConfigScopeAmbiguous, d.Class, flag)
		assert.Equal(t, "flag --"+flag, d.Subject.Name(), flag)
	}
	in := withFile("plan", estate, nil)
	in.Environ = []string{EnvName(RecoveryWindowDays) + "=9"}
	d := onlyProblem(t, in)
	assert.Equal(t, diag.ConfigScopeAmbiguous, d.Class)
	assert.Equal(t, "environment variable SOPS_AWS_SYNC_RECOVERY_WINDOW_DAYS", d.Subject.Name())
	assert.Contains(t, d.Next, "config file")

	// Settings of the whole run stay flags and variables.
	in = withFile("plan", estate, map[string]string{Concurrency: "2", Revision: "main"})
	in.Environ = []string{EnvName(LogLevel) + "=warn", EnvName(SecretPrefix) + "="} // empty = unset
	o, err := Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, 2, o.Scopes[2].Engine.Concurrency)
	assert.Equal(t, "main", o.Scopes[0].Desired.Revision)
}

func TestScopeEntryRules(t *testing.T) {
	head := "repository-id: acme/payments\nsecret-prefix: p\nscopes:\n"
	for name, tc := range map[string]struct {
		entries, class, subject string
	}{
		"not per scope":     {"  - name: a\n    concurrency: 2\n", diag.ConfigNotPerScope, "config file key scopes.a.concurrency"},
		"flag-only":         {"  - name: a\n    config: x.yaml\n", diag.ConfigNotPerScope, "config file key scopes.a.config"},
		"repository-id":     {"  - name: a\n    repository-id: other/repo\n", diag.ConfigNotPerScope, "config file key scopes.a.repository-id"},
		"unknown key":       {"  - name: a\n    secret-prefx: x\n", diag.ConfigUnknownKey, "config file key scopes.a.secret-prefx"},
		"unsafe key":        {"  - name: a\n    \"SEKRIT value\": x\n", diag.ConfigUnknownKey, "config file key at line 5"},
		"key twice":         {"  - name: a\n    tag: {a: b}\n    tags: {c: d}\n", diag.ConfigInvalidValue, "config file key scopes.a.tag"},
		"wrong type":        {"  - name: a\n    allow-empty: \"yes\"\n", diag.ConfigWrongType, "config file key scopes.a.allow-empty"},
		"out of rule":       {"  - name: a\n    recovery-window-days: 3\n", diag.ConfigInvalidValue, "config file key scopes.a.recovery-window-days"},
		"bad role":          {"  - name: a\n    role-arn: arn:aws:iam::1:role/x\n", diag.ConfigInvalidValue, "config file key scopes.a.role-arn"},
		"bad name":          {"  - name: Prod\n", diag.ConfigInvalidValue, "config file key scopes[0].name"},
		"long name":         {"  - name: " + strings.Repeat("a", 33) + "\n", diag.ConfigInvalidValue, "config file key scopes[0].name"},
		"name not text":     {"  - name: 12\n", diag.ConfigWrongType, "config file key scopes[0].name"},
		"no name":           {"  - secret-prefix: q\n", diag.ConfigRequired, "config file key scopes[0].name"},
		"duplicate name":    {"  - name: a\n  - name: a\n    secret-prefix: q\n", diag.ConfigInvalidValue, "config file key scopes[1].name"},
		"name twice":        {"  - name: a\n    name: b\n", diag.ConfigInvalidValue, "config file key scopes[0].name"},
		"entry not mapping": {"  - a\n", diag.ConfigWrongType, "config file key scopes[0]"},
	} {
		t.Run(name, func(t *testing.T) {
			d := onlyProblem(t, withFile("sync", head+tc.entries, nil))
			assert.Equal(t, tc.class, d.Class)
			assert.Equal(t, tc.subject, d.Subject.Name())
		})
	}
	for name, tc := range map[string]struct{ body, class string }{
		"not a list":   {"repository-id: r\nsecret-prefix: p\nscopes: {a: b}\n", diag.ConfigWrongType},
		"empty list":   {"repository-id: r\nsecret-prefix: p\nscopes: []\n", diag.ConfigInvalidValue},
		"given twice":  {"repository-id: r\nsecret-prefix: p\nscopes: [{name: a}]\nscopes: [{name: b}]\n", diag.ConfigInvalidValue},
		"no prefix":    {"repository-id: r\nscopes: [{name: a, source-root: x}]\n", diag.ConfigRequired},
		"no repo id":   {"scopes: [{name: a, secret-prefix: x}]\n", diag.ConfigRequired},
		"scopes null":  {"repository-id: r\nsecret-prefix: p\nscopes:\n", diag.ConfigWrongType},
		"scopes value": {"repository-id: r\nsecret-prefix: p\nscopes: a\n", diag.ConfigWrongType},
	} {
		t.Run(name, func(t *testing.T) {
			d := onlyProblem(t, withFile("sync", tc.body, nil))
			assert.Equal(t, tc.class, d.Class)
			assert.Regexp(t, `^(config file key scopes|setting --repository-id$)`, d.Subject.Name())
		})
	}
	d := onlyProblem(t, withFile("sync", "repository-id: r\nscopes: [{name: a, secret-prefix: x}, {name: b}]\n", nil))
	assert.Equal(t, "config file key scopes.b.secret-prefix", d.Subject.Name(), "each scope needs a prefix, its own or the top-level one")
}

// Every problem of every scope is reported at once.
func TestScopeProblemsAreAllReported(t *testing.T) {
	body := "repository-id: r\nscopes:\n  - name: a\n    concurrency: 2\n  - name: B\n  - name: c\n    recovery-window-days: 99\n"
	_, err := Resolve(withFile("sync", body, map[string]string{AWSRegion: "eu-west-1"}))
	ps := problems(t, err)
	var got []string
	for _, p := range ps {
		got = append(got, p.Class+" "+p.Subject.Name())
	}
	assert.ElementsMatch(t, []string{
		"config:scope-ambiguous flag --aws-region",
		"config:not-per-scope config file key scopes.a.concurrency",
		"config:required config file key scopes.a.secret-prefix",
		"config:invalid-value config file key scopes[1].name",
		"config:required config file key scopes[1].secret-prefix",
		"config:invalid-value config file key scopes.c.recovery-window-days",
		"config:required config file key scopes.c.secret-prefix",
	}, got)
}

func TestScopeFlagRunsASubset(t *testing.T) {
	o, err := Resolve(withFile("plan", estate, map[string]string{ScopeFilter: "dev,prod-eu"}))
	require.NoError(t, err)
	require.Len(t, o.Scopes, 2)
	assert.Equal(t, "prod-eu", o.Scopes[0].Name, "config order, not --scope order")
	assert.Equal(t, "dev", o.Scopes[1].Name)

	for _, v := range []string{"prod-us", "dev,prod-us", "Dev", "dev,,prod-eu", "dev,dev", "dev prod-eu"} {
		d := onlyProblem(t, withFile("plan", estate, map[string]string{ScopeFilter: v}))
		assert.Equal(t, diag.ConfigInvalidValue, d.Class, v)
		assert.Equal(t, "flag --scope", d.Subject.Name(), v)
	}

	in := base()
	in.Flags[ScopeFilter] = model.DefaultScopeName
	o, err = Resolve(in)
	require.NoError(t, err)
	require.Len(t, o.Scopes, 1)
	in.Flags[ScopeFilter] = "prod"
	assert.Equal(t, diag.ConfigInvalidValue, onlyProblem(t, in).Class, "without scopes: the one scope is default")

	in = withFile("plan", estate, nil)
	in.Environ = []string{EnvName(ScopeFilter) + "=dev"}
	assert.Equal(t, diag.ConfigFlagOnly, onlyProblem(t, in).Class, "--scope is flag only")
	assert.Equal(t, diag.ConfigFlagOnly, onlyProblem(t, withFile("plan", estate+"scope: dev\n", nil)).Class)
}

// Scope problems quote no value either: the canary appears as a scope's
// value, a scope name, a key and a --scope name.
func TestScopeProblemsNeverEchoValues(t *testing.T) {
	for name, in := range map[string]Input{
		"value":      withFile("sync", "repository-id: r\nscopes:\n  - name: a\n    secret-prefix: \""+canary+" x\"\n", nil),
		"name":       withFile("sync", "repository-id: r\nsecret-prefix: p\nscopes:\n  - name: \""+canary+"\"\n", nil),
		"key":        withFile("sync", "repository-id: r\nsecret-prefix: p\nscopes:\n  - name: a\n    \""+canary+"\": 1\n", nil),
		"role":       withFile("sync", "repository-id: r\nsecret-prefix: p\nscopes:\n  - name: a\n    role-arn: \""+canary+"\"\n", nil),
		"subset":     withFile("sync", estate, map[string]string{ScopeFilter: "canary-7f3a9-sekrit"}),
		"ambiguous":  withFile("sync", estate, map[string]string{Description: canary}),
		"not scoped": withFile("sync", "repository-id: r\nsecret-prefix: p\nscopes:\n  - name: a\n    revision: "+canary+"\n", nil),
	} {
		_, err := Resolve(in)
		ps := problems(t, err)
		require.NotEmpty(t, ps, name)
		for _, l := range ps.Lines() {
			assert.NotContains(t, strings.ToLower(l), strings.ToLower(canary), name)
		}
	}
}

// A per-scope rule that reads another per-scope setting sees the scope's
// own value: top-level replica-regions is checked against each scope's
// Region, and a top-level value that breaks its rule is reported once.
func TestInheritedSettingsAreCheckedPerScope(t *testing.T) {
	body := "repository-id: r\nreplica-regions: eu-central-1\nscopes:\n" +
		"  - name: a\n    secret-prefix: a\n    aws-region: eu-west-1\n" +
		"  - name: b\n    secret-prefix: b\n    aws-region: eu-central-1\n"
	d := onlyProblem(t, withFile("sync", body, nil))
	assert.Equal(t, diag.ConfigInvalidValue, d.Class)
	assert.Equal(t, "config file key scopes.b.replica-regions", d.Subject.Name())

	d = onlyProblem(t, withFile("sync", "repository-id: r\nrecovery-window-days: 3\nscopes: [{name: a, secret-prefix: a}, {name: b, secret-prefix: b}]\n", nil))
	assert.Equal(t, "config file key recovery-window-days", d.Subject.Name(), "reported once, at the top level")
}

// TestRegression_YAMLAliasReportedAsWrongType: an alias (*name) in a
// config file was refused as the setting's wrong type ("must be a YAML
// string" for an alias of a string), which sends the operator looking at
// a value that is a string; a merge key (<<) in a scope entry was an
// unknown key "at line N". Both are now one config:file problem that says
// what is not read and where; an anchor alone is fine.
func TestRegression_YAMLAliasReportedAsWrongType(t *testing.T) {
	for name, body := range map[string]string{
		"alias of a string":   "repository-id: r\nsource-root: &root secrets/prod\nscopes:\n  - name: a\n    secret-prefix: p/a\n    source-root: *root\n",
		"alias of tags":       "repository-id: r\ntags: &t {team: x}\nscopes:\n  - name: a\n    secret-prefix: p/a\n    tags: *t\n",
		"merge key":           "repository-id: r\nscopes:\n  - &a\n    name: a\n    secret-prefix: p/a\n  - <<: *a\n    name: b\n    secret-prefix: p/b\n",
		"top-level alias":     "repository-id: &id r\nsecret-prefix: *id\n",
		"merge key, no alias": "repository-id: r\nscopes:\n  - <<: {secret-prefix: p/a}\n    name: a\n",
	} {
		t.Run(name, func(t *testing.T) {
			// As for every config:file problem, the file's settings are not
			// read, so the required ones are reported missing beside it.
			_, err := Resolve(withFile("sync", body, nil))
			ps := problems(t, err)
			require.NotEmpty(t, ps)
			assert.Equal(t, diag.ConfigFile, ps[0].Class)
			assert.Contains(t, ps[0].Error(), "uses a YAML alias (*name) or merge key (<<) at line ")
			for _, d := range ps[1:] {
				assert.Equal(t, diag.ConfigRequired, d.Class, "no wrong type or unknown key: %v", d)
			}
		})
	}
	o, err := Resolve(withFile("sync", "repository-id: r\nsource-root: &root secrets\nscopes:\n  - name: a\n    secret-prefix: p/a\n", nil))
	require.NoError(t, err, "an anchor alone is read as its value")
	assert.Equal(t, "secrets", o.Scopes[0].Desired.SourceRoot)
}

// TestRegression_PlanRoleARNIsPlansRole: plan assumes plan-role-arn, sync
// role-arn, per scope and from the top level; a plan role in another
// account is refused in both commands.
func TestRegression_PlanRoleARNIsPlansRole(t *testing.T) {
	const writer, reader = "arn:aws:iam::111111111111:role/w", "arn:aws:iam::111111111111:role/r"
	for cmd, want := range map[string][2]string{"plan": {reader, PlanRoleARN}, "sync": {writer, RoleARN}} {
		in := base()
		in.Command = cmd
		in.Flags[RoleARN], in.Flags[PlanRoleARN] = writer, reader
		o, err := Resolve(in)
		require.NoError(t, err)
		assert.Equal(t, want, [2]string{o.Scopes[0].AWS.RoleARN, o.Scopes[0].AWS.RoleSetting}, cmd)

		in.Flags[PlanRoleARN] = "arn:aws:iam::222222222222:role/r"
		_, err = Resolve(in)
		require.Error(t, err, cmd)
		assert.Contains(t, err.Error(), "config:invalid-value", cmd)
	}
}

// TestRegression_OneOffOverrideOfTheSelectedScope: with --scope NAME
// selecting one scope of scopes:, a per-scope flag or variable is that
// scope's value for this run (over its entry's and the top-level value);
// every other configured scope keeps what the file gives it. Without
// --scope, or with two names, it stays config:scope-ambiguous (the gates'
// "re-run once with a higher --max-deletions" was refused in config-file
// mode).
func TestRegression_OneOffOverrideOfTheSelectedScope(t *testing.T) {
	in := withFile("sync", estate, map[string]string{ScopeFilter: "prod-eu", MaxDeletions: "9", AllowEmpty: "true"})
	in.Environ = []string{EnvName(RecoveryWindowDays) + "=8"}
	o, err := Resolve(in)
	require.NoError(t, err)
	require.Len(t, o.Scopes, 1)
	prod := o.Scopes[0]
	require.NotNil(t, prod.Engine.MaxDeletions)
	assert.Equal(t, 9, *prod.Engine.MaxDeletions, "the flag over the entry's max-deletions: 2")
	assert.True(t, prod.Engine.AllowEmpty)
	assert.Equal(t, 8, prod.Engine.RecoveryWindowDays, "the variable over the top-level 14")
	assert.Equal(t, "prod/payments", prod.Desired.SecretPrefix, "the rest from the file")
	for _, sc := range o.Configured {
		if sc.Name == "staging" {
			assert.Equal(t, 7, sc.Engine.RecoveryWindowDays, "another scope keeps the file's value")
		}
		if sc.Name == "dev" {
			assert.Nil(t, sc.Engine.MaxDeletions, "another scope gets no override")
			assert.Equal(t, 14, sc.Engine.RecoveryWindowDays)
			assert.False(t, sc.Engine.AllowEmpty)
		}
	}

	for _, filter := range []string{"", "prod-eu,dev"} {
		flags := map[string]string{MaxDeletions: "9"}
		if filter != "" {
			flags[ScopeFilter] = filter
		}
		d := onlyProblem(t, withFile("sync", estate, flags))
		assert.Equal(t, ClassScopeAmbiguous, d.Class, filter)
	}
	d := onlyProblem(t, withFile("sync", estate, map[string]string{ScopeFilter: "dev", MaxDeletions: "-1"}))
	assert.Equal(t, "flag --max-deletions", d.Subject.Name(), "an override that breaks its rule names the flag once")
	assert.Equal(t, map[string]Source{MaxDeletions: SourceFlag, AllowEmpty: SourceFlag, RecoveryWindowDays: SourceEnv}, prod.Overrides)
	assert.Equal(t, "max-deletions", prod.SettingName(MaxDeletions), "a diagnostic about the scope's limit names the flag")
	assert.Equal(t, SourceFlag, prod.SettingSource(MaxDeletions))
	assert.Equal(t, EnvName(RecoveryWindowDays), prod.SettingName(RecoveryWindowDays))
	assert.Equal(t, "scopes.prod-eu.secret-prefix", prod.SettingName(SecretPrefix))
}

// TestOneOffOverrideChangesThePlanSettings: a one-off --max-deletions or
// --allow-empty is in the scope's PlanSettings (what a plan file's
// settings_digest binds), so a sync given an override its reviewed plan
// did not have is plan:stale (docs/recovery.md, "One-off overrides and
// reviewed plans"); the same override gives the same bytes.
func TestOneOffOverrideChangesThePlanSettings(t *testing.T) {
	settings := func(flags map[string]string) []byte {
		flags[ScopeFilter] = "prod-eu"
		o, err := Resolve(withFile("sync", estate, flags))
		require.NoError(t, err)
		require.Len(t, o.Scopes, 1)
		return o.Scopes[0].PlanSettings()
	}
	base := settings(map[string]string{})
	assert.NotEqual(t, base, settings(map[string]string{MaxDeletions: "9"}))
	assert.NotEqual(t, base, settings(map[string]string{AllowEmpty: "true"}))
	assert.Equal(t, settings(map[string]string{MaxDeletions: "9"}), settings(map[string]string{MaxDeletions: "9"}))
}

// TestOneOffOverrideIsBoundInDeclarationOrder: an override is bound where
// the setting is declared, so a later rule reads it: the entry's
// replica-regions is checked against the overriding --aws-region (and a
// problem of that check names the entry's key, the override's Region
// being the scope's for this run).
func TestOneOffOverrideIsBoundInDeclarationOrder(t *testing.T) {
	const file = `repository-id: acme/payments
scopes:
  - name: a
    secret-prefix: a/
    aws-region: eu-west-1
    replica-regions: eu-central-1
  - name: b
    secret-prefix: b/
    aws-region: eu-central-1
`
	o, err := Resolve(withFile("sync", file, map[string]string{ScopeFilter: "a", AWSRegion: "us-east-1"}))
	require.NoError(t, err)
	require.Len(t, o.Scopes, 1)
	assert.Equal(t, "us-east-1", o.Scopes[0].AWS.Region)
	for _, sc := range o.Configured {
		if sc.Name == "b" {
			assert.Equal(t, "eu-central-1", sc.AWS.Region, "the other scope keeps its Region")
			assert.Nil(t, sc.Overrides)
		}
	}
	d := onlyProblem(t, withFile("sync", file, map[string]string{ScopeFilter: "a", AWSRegion: "eu-central-1"}))
	assert.Equal(t, ClassInvalidValue, d.Class)
	assert.Equal(t, "config file key scopes.a.replica-regions", d.Subject.Name(), "the entry's replicas now list the scope's own Region")
	d = onlyProblem(t, withFile("sync", file, map[string]string{ScopeFilter: "a", ReplicaRegions: "eu-west-1"}))
	assert.Equal(t, ClassInvalidValue, d.Class)
	assert.Equal(t, "flag --replica-regions", d.Subject.Name(), "the override breaks the rule against the entry's Region")
}
