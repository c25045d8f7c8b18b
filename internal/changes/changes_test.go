package changes

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

var update = flag.Bool("update", false, "rewrite testdata/changes.golden.json")

const sha = "0123456789abcdef0123456789abcdef01234567"

const arnDB = "arn:aws:secretsmanager:eu-west-1:111111111111:secret:prod/app/db-AbCdEf"

func sample() Changes {
	return New("v1.2.3", sha, vocab.StatusConverged,
		[]Scope{{Name: "prod", Region: "eu-west-1", Status: vocab.StatusConverged, StateDigest: DigestPrefix + strings.Repeat("ab", 32)},
			{Name: "staging", Region: "eu-west-1", Status: vocab.StatusConverged, StateDigest: DigestPrefix + strings.Repeat("cd", 32)}},
		[]Change{
			{Scope: "prod", Action: vocab.ActionCreate, Name: "prod/app/api", ARN: "arn:aws:secretsmanager:eu-west-1:111111111111:secret:prod/app/api-Zx12Yw", VersionID: "3f6c2a1e9b8d4c7fa0e1d2c3b4a59687"},
			{Scope: "prod", Action: vocab.ActionUpdate, Name: "prod/app/db", ARN: arnDB, VersionID: "9a8b7c6d5e4f30211a2b3c4d5e6f7081"},
			{Scope: "staging", Action: vocab.ActionScheduleDelete, Name: "staging/app/old", ARN: "arn:aws:secretsmanager:eu-west-1:222222222222:secret:staging/app/old-Qw34Er"},
		})
}

// TestChangesFileGolden pins the changes file's bytes (the contract
// docs/results.md documents and the Action's changes.ts reads): a change
// of a key, its order or its spelling fails here; -update rewrites it.
func TestChangesFileGolden(t *testing.T) {
	b, err := wirefile.Marshal(sample())
	require.NoError(t, err)
	golden := filepath.Join("testdata", "changes.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, b, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(b))
	c, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, sample(), c)
}

// TestNewHasListsNeverNull: a run without changes or scopes still writes
// both keys, as empty lists (a consumer's jq '.changes[]' never fails).
func TestNewHasListsNeverNull(t *testing.T) {
	b, err := wirefile.Marshal(New("v", "HEAD", vocab.StatusInvalid, nil, nil))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"changes": []`)
	assert.Contains(t, string(b), `"scopes": []`)
	assert.Contains(t, string(b), `"git_revision": ""`)
}

// TestValidateRefusesWhatBreaksARule: one broken rule per row, each
// refused by Validate (so by Parse and by the writer).
func TestValidateRefusesWhatBreaksARule(t *testing.T) {
	rows := map[string]func(c *Changes){
		"schema":                  func(c *Changes) { c.SchemaVersion = "sops-aws-sync/changes/v2" },
		"status":                  func(c *Changes) { c.Status = "done" },
		"revision":                func(c *Changes) { c.GitRevision = "abc" },
		"null changes":            func(c *Changes) { c.Changes = nil },
		"scope name":              func(c *Changes) { c.Scopes[0].Name = "Prod" },
		"scope twice":             func(c *Changes) { c.Scopes[1].Name = "prod" },
		"scope region":            func(c *Changes) { c.Scopes[0].Region = "moon-1" },
		"digest beside failure":   func(c *Changes) { c.Scopes[0].Status = vocab.StatusApplyFailed },
		"digest form":             func(c *Changes) { c.Scopes[0].StateDigest = "sha1:abc" },
		"change of unknown scope": func(c *Changes) { c.Changes[0].Scope = "dev" },
		"action not operation":    func(c *Changes) { c.Changes[0].Action = vocab.ActionUnchanged },
		"name rule":               func(c *Changes) { c.Changes[0].Name = "prod/app api" },
		"arn of another name":     func(c *Changes) { c.Changes[1].ARN = strings.Replace(arnDB, "prod/app/db", "prod/app/dc", 1) },
		"arn of another service":  func(c *Changes) { c.Changes[1].ARN = strings.Replace(arnDB, "secretsmanager", "ssm", 1) },
		"no arn, scope converged": func(c *Changes) { c.Changes[1].ARN = "" },
		"version too long":        func(c *Changes) { c.Changes[0].VersionID = strings.Repeat("a", 65) },
		"version not printable":   func(c *Changes) { c.Changes[0].VersionID = "a b" },
	}
	require.NoError(t, sample().Validate())
	for name, breakIt := range rows {
		c := sample()
		breakIt(&c)
		assert.Error(t, c.Validate(), name)
	}
}

// A change of a scope that did not converge may lack its ARN (a
// Parameter Store create the run stopped before observing: PutParameter
// answers no ARN); the file is valid and round-trips.
func TestChangeWithoutARNInAScopeThatStopped(t *testing.T) {
	c := New("v1.2.3", sha, vocab.StatusInterrupted,
		[]Scope{{Name: "params", Region: "eu-west-1", Status: vocab.StatusInterrupted}},
		[]Change{{Scope: "params", Action: vocab.ActionCreate, Name: "/prod/params/api", VersionID: "1"}})
	require.NoError(t, c.Validate())
	b, err := wirefile.Marshal(c)
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, c, back)
}

// TestParseIsStrict: an unknown key, a missing one or a key in another
// letter case is refused.
func TestParseIsStrict(t *testing.T) {
	good, err := wirefile.Marshal(sample())
	require.NoError(t, err)
	for name, bad := range map[string]string{
		"unknown key": strings.Replace(string(good), `"status"`, `"value": "x", "status"`, 1),
		"missing key": strings.Replace(string(good), `"tool_version": "v1.2.3",`, ``, 1),
		"letter case": strings.Replace(string(good), `"arn"`, `"ARN"`, 1),
	} {
		_, err := Parse([]byte(bad))
		assert.Error(t, err, name)
	}
}

// TestRegression_ParameterStoreChangesRefusedByTheFilesOwnCheck: a sync of
// a parameter-store scope that created, updated and deleted parameters
// wrote no changes file and exited 3, because the file's own check knew
// only Secrets Manager's ARN form. The check takes every target's form
// from the target table (SPEC §16: a parameter's ARN
// arn:…:ssm:…:parameter/NAME and its version); a parameter ARN of another
// name, a secret's form for a parameter and an ARN of neither service are
// still refused.
func TestRegression_ParameterStoreChangesRefusedByTheFilesOwnCheck(t *testing.T) {
	const arn = "arn:aws:ssm:eu-west-1:111111111111:parameter/prod/params/db"
	c := New("v1.2.3", sha, vocab.StatusConverged,
		[]Scope{{Name: "params", Region: "eu-west-1", Status: vocab.StatusConverged, StateDigest: DigestPrefix + strings.Repeat("ef", 32)}},
		[]Change{
			{Scope: "params", Action: vocab.ActionCreate, Name: "/prod/params/api", ARN: "arn:aws:ssm:eu-west-1:111111111111:parameter/prod/params/api", VersionID: "1"},
			{Scope: "params", Action: vocab.ActionUpdate, Name: "/prod/params/db", ARN: arn, VersionID: "2"},
			{Scope: "params", Action: vocab.ActionScheduleDelete, Name: "prod/params/old", ARN: "arn:aws:ssm:eu-west-1:111111111111:parameter/prod/params/old"},
		})
	require.NoError(t, c.Validate())
	b, err := wirefile.Marshal(c)
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, c, back)

	for name, a := range map[string]string{
		"another name":        strings.Replace(arn, "/db", "/dc", 1),
		"a secret's form":     "arn:aws:ssm:eu-west-1:111111111111:secret:prod/params/db-AbCdEf",
		"another service":     strings.Replace(arn, ":ssm:", ":s3:", 1),
		"a doubled separator": strings.Replace(arn, "parameter/", "parameter//", 1),
	} {
		broken := New("v", sha, vocab.StatusConverged, c.Scopes, []Change{{Scope: "params", Action: vocab.ActionUpdate, Name: "/prod/params/db", ARN: a, VersionID: "2"}})
		assert.Error(t, broken.Validate(), name)
	}
}
