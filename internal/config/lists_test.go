package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// listEstate is a config file of two scopes whose list-valued keys are
// given once as YAML sequences and once as comma-separated strings.
const listEstate = `repository-id: acme/payments
key-services: [age, aws-kms]
scopes:
  - name: seq
    secret-prefix: seq/app
    aws-region: eu-west-1
    replica-regions:
      - us-west-2
      - eu-central-1=alias/app
    adopt: [seq/app/db, seq/app/api]
  - name: comma
    secret-prefix: comma/app
    aws-region: eu-west-1
    replica-regions: us-west-2,eu-central-1=alias/app
    adopt: comma/app/db,comma/app/api
`

// TestRegression_ListKeysAcceptYAMLSequences (issue 30 §6): every
// list-valued config key (replica-regions, key-services, adopt) takes a
// YAML sequence and its comma-separated string alike; a sequence entry
// holding a comma is no single item and is refused.
func TestRegression_ListKeysAcceptYAMLSequences(t *testing.T) {
	o, err := Resolve(withFile("sync", listEstate, nil))
	require.NoError(t, err)
	require.Len(t, o.Scopes, 2)
	seq, comma := o.Scopes[0], o.Scopes[1]
	require.Len(t, seq.Engine.Replicas, 2)
	assert.Equal(t, comma.Engine.Replicas, seq.Engine.Replicas, "a YAML list and the comma string give the same replicas")
	assert.Equal(t, []string{"seq/app/db", "seq/app/api"}, seq.Engine.Adopt)
	assert.Equal(t, []string{"comma/app/db", "comma/app/api"}, comma.Engine.Adopt)
	ks, err := Resolve(withFile("sync", "repository-id: a/b\nsecret-prefix: x\nkey-services: age,aws-kms\n", nil))
	require.NoError(t, err)
	assert.Equal(t, ks.Desired.KeyServices, o.Desired.KeyServices, "key-services: list and string alike")

	for _, bad := range []string{"replica-regions: [us-west-2, 'eu-central-1,us-east-1']", "replica-regions: []", "key-services: [age, 1]"} {
		d := onlyProblem(t, withFile("sync", "repository-id: a/b\nsecret-prefix: x\n"+bad+"\n", nil))
		assert.Equal(t, ClassWrongType, d.Class, bad)
	}
}

// TestRegression_UnknownKeySuggestsTheNearest (issue 30 §6): an unknown
// key, at the top level, in a scope entry or as a variable, says the
// nearest setting; the typed word itself is not echoed in the reason.
func TestRegression_UnknownKeySuggestsTheNearest(t *testing.T) {
	d := onlyProblem(t, withFile("sync", "repository-id: a/b\nsecret-prefix: x\nreplicas-regions: us-west-2\n", nil))
	assert.Equal(t, ClassUnknownKey, d.Class)
	assert.Contains(t, d.Summary, "did you mean replica-regions?")
	d = onlyProblem(t, withFile("sync", "repository-id: a/b\nscopes:\n  - name: a\n    secret-prefix: x\n    key-service: age\n", nil))
	assert.Equal(t, ClassUnknownKey, d.Class)
	assert.Contains(t, d.Summary, "did you mean key-services?")
	assert.Equal(t, "config file key scopes.a.key-service", d.Subject.Name())
	in := Input{Command: "sync", Flags: map[string]string{RepositoryID: "a/b", SecretPrefix: "x"},
		Environ: []string{"SOPS_AWS_SYNC_REPLICA_REGION=us-west-2"}}
	d = onlyProblem(t, in)
	assert.Contains(t, d.Summary, "did you mean SOPS_AWS_SYNC_REPLICA_REGIONS?")
}

// TestRegression_TypeErrorSaysTheExpectedForm (issue 30 §6): a config-file
// value of the wrong YAML type is refused with the form expected, every
// setting of every kind: a list kind names its items and both forms.
func TestRegression_TypeErrorSaysTheExpectedForm(t *testing.T) {
	d := onlyProblem(t, withFile("sync", "repository-id: a/b\nsecret-prefix: x\nreplica-regions: {us-west-2: x}\n", nil))
	assert.Equal(t, ClassWrongType, d.Class)
	assert.Equal(t, "must be a YAML list of Region codes (REGION or REGION=KMS_KEY), or a comma-separated string", d.Summary)
	d = onlyProblem(t, withFile("sync", "repository-id: a/b\nsecret-prefix: x\nadopt: {a: b}\n", nil))
	assert.Equal(t, "must be a YAML list of secret names (strings), or a comma-separated string", d.Summary)
	for _, s := range Settings {
		form := expectedYAML(s)
		require.NotEmpty(t, form, s.Name)
		_, ok := kinds[s.Kind].fromYAML(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
		if s.Kind == KindTags {
			assert.Contains(t, form, "mapping", s.Name)
			continue
		}
		assert.False(t, ok, "%s takes a mapping", s.Name)
	}
}

// TestRegression_DiagnosticNamesTheSettingsSource (issue 30 §6): a
// rejected replica-regions names where it came from: the config key path
// of its scope entry, the flag, or the variable; and a resolved scope
// names the source of each setting for diagnostics raised later (the
// engine's config:replica-region).
func TestRegression_DiagnosticNamesTheSettingsSource(t *testing.T) {
	const bad = "eu west"
	file := "repository-id: a/b\nscopes:\n  - name: a\n    secret-prefix: x\n  - name: b\n    secret-prefix: y\n    replica-regions: [\"" + bad + "\"]\n"
	d := onlyProblem(t, withFile("sync", file, nil))
	assert.Equal(t, "config file key scopes.b.replica-regions", d.Subject.Name())
	base := map[string]string{RepositoryID: "a/b", SecretPrefix: "x"}
	flags := map[string]string{ReplicaRegions: bad}
	for k, v := range base {
		flags[k] = v
	}
	d = onlyProblem(t, Input{Command: "sync", Flags: flags})
	assert.Equal(t, "flag --replica-regions", d.Subject.Name())
	d = onlyProblem(t, Input{Command: "sync", Flags: base, Environ: []string{EnvName(ReplicaRegions) + "=" + bad}})
	assert.Equal(t, "environment variable SOPS_AWS_SYNC_REPLICA_REGIONS", d.Subject.Name())

	o, err := Resolve(Input{Command: "sync", Flags: base, Environ: []string{EnvName(ReplicaRegions) + "=us-west-2"}})
	require.NoError(t, err)
	assert.Equal(t, diag.Subject{Setting: "SOPS_AWS_SYNC_REPLICA_REGIONS", Origin: diag.OriginEnv}, o.Scopes[0].SettingSubject(ReplicaRegions))
	assert.Equal(t, diag.Subject{Setting: SecretPrefix, Origin: diag.OriginFlag}, o.Scopes[0].SettingSubject(SecretPrefix))
	o, err = Resolve(withFile("sync", listEstate, nil))
	require.NoError(t, err)
	assert.Equal(t, "config file key scopes.seq.replica-regions", o.Scopes[0].SettingSubject(ReplicaRegions).Name())
}
