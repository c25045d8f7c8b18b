package e2e

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// import (SPEC §18) into a parameter-store scope (SPEC §16): the real
// binary, sops and age, Git and the emulator's Parameter Store.

// paramEstate creates the parameters of es under the fixture's prefix
// ("/" + prefix + "/" + rel; Type typ, SecureString when "", with tags),
// and makes each value and name a canary of every later run; it returns
// the values' canaries.
func (f *fixture) paramEstate(e *emu, es []importEstate) []string {
	f.t.Helper()
	for _, s := range es {
		typ := s.ptype
		if typ == "" {
			typ = ssmtypes.ParameterTypeSecureString
		}
		var tags []ssmtypes.Tag
		for k, v := range s.tags {
			tags = append(tags, ssmtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		_, err := e.ssmClient().PutParameter(context.Background(), &ssm.PutParameterInput{
			Name: aws.String(model.ParameterName(f.Prefix + "/" + s.rel)), Value: s.str, Type: typ, Tags: tags})
		require.NoError(f.t, err, s.rel)
	}
	return f.canaries(es)
}

// paramsEstate is the estate of the Parameter Store import: SecureStrings
// holding a canonical JSON object, a JSON object spelled by hand and a
// PEM text; a String and a StringList (the tool writes SecureString only:
// adoption refuses the type, and AWS changes no parameter's type in place);
// a SecureString another scope's tags mark; one whose name maps to no
// document path (a .git segment).
func paramsEstate() []importEstate {
	es := slices.Clone(mixedEstate()[:3]) // canonical JSON, hand-spelled JSON, PEM
	tok := tokOf(es)
	str := func(s string) *string { return &s }
	return append(es,
		importEstate{rel: "plain-" + tok, str: str("CANARY-string-" + tok), ptype: ssmtypes.ParameterTypeString, canary: "CANARY-string-" + tok},
		importEstate{rel: "list-" + tok, str: str("a,CANARY-list-" + tok), ptype: ssmtypes.ParameterTypeStringList, canary: "CANARY-list-" + tok},
		importEstate{rel: "other-" + tok, str: str("CANARY-other-" + tok), tags: map[string]string{model.TagScope: "another"}, canary: "CANARY-other-" + tok},
		importEstate{rel: "cfg/.git/x-" + tok, str: str("CANARY-git-" + tok), canary: "CANARY-git-" + tok},
	)
}

// TestImport_ParameterStoreEstateImportsAndSyncAdoptsWithoutValueWrites:
// a parameter-store scope whose prefix holds an owned parameter (synced
// from its document) and parameters made by hand imports the SecureStrings
// it can (canonical JSON → .sops.json; a hand-spelled JSON object and a
// PEM → .sops.txt), leaves the owned one alone without a word, and skips
// with their warnings the String and the StringList (unadoptable), the
// one another scope's tags mark (managed) and the one whose name maps to
// no path (name). The documents decrypt with the sops CLI to the live
// values; after a commit, the plan adopts each with value equal and sync
// adopts them with no PutParameter (tags only). No value is in any file
// of the work tree (Git's objects included) or of the run's TMPDIR, nor
// in its logs or report.
func TestImport_ParameterStoreEstateImportsAndSyncAdoptsWithoutValueWrites(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.sopsRule()
	owned := f.addDoc("owned-"+token(4), ".sops.json", `{"k":"CANARY-owned-`+token(4)+`"}`)
	f.commit("owned")
	r := f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	es := paramsEstate()
	canaries := f.paramEstate(e, es)
	tmp := t.TempDir()
	writes := e.psWriteCalls()

	r = f.run(e, psEnv(e, f.importEnv(tmp)...), f.psArgs("import")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 3, Unchanged: 1})
	assert.Equal(t, writes, e.psWriteCalls(), "import writes nothing to AWS")
	assert.Equal(t, map[string]int{"warning:import-unadoptable": 2, "warning:import-managed": 1, "warning:import-name": 1}, classes(t, r), r.Stdout)
	f.importedDocs(es)
	noCanaryInFiles(t, canaries, f.Repo, tmp)

	f.commit("import")
	adopt := f.adoptFlags(es)
	_, v, _ := f.runPlan(e, runOpts{Env: psEnv(e).Env, ShowNames: true}, f.psArgs("plan", append(adopt, "--show-resource-names")...)...)
	ops := byResource(v)
	for _, s := range es {
		if s.doc != "" {
			name := f.Prefix + "/" + s.rel
			require.Len(t, ops[name], 1, name)
			assert.Equal(t, vocab.ActionAdopt, ops[name][0].Action, name)
			assert.Equal(t, vocab.ReasonValueEqual, ops[name][0].Reason, name)
		}
	}
	assert.Equal(t, vocab.ActionUnchanged, ops[owned][0].Action)
	before := e.stats().Calls
	r = f.run(e, psEnv(e), f.psArgs("sync", adopt...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 3, Unchanged: 1})
	calls := e.stats().Calls
	assert.Equal(t, before["PutParameter"], calls["PutParameter"], "no value written")
	assert.EqualValues(t, 3, calls["AddTagsToResource"]-before["AddTagsToResource"], "one AddTagsToResource per adoption")
	noCanaryInFiles(t, canaries, f.Repo, tmp)
}
