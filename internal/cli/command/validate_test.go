package command

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run/runtest"
)

// paritySources is the run.Sources of the parity test: the production AWS
// set-up (factory.NewPorts: the SDK's configuration, Regions, the overlap
// rule, roles) over a tripwire (AWS_ENDPOINT_URL, see tripwire), and a
// commit and documents in memory (runtest.Sources), with a loader failure
// injected at the stage that raises its class: the revision (git:revision,
// git:repository), the outline (Open: git:read, source:*, name:*), or the
// values (Decrypt: decrypt:*, plaintext:*, desired:*).
type paritySources struct {
	*runtest.Sources
	revisionErr error
	ports       *atomic.Int64 // Ports calls
}

func (s paritySources) Ports(ctx context.Context, scopes, configured []config.Scope, parallel int) ([]run.ScopePort, error) {
	s.ports.Add(1)
	return factory.Sources{}.Ports(ctx, scopes, configured, parallel)
}

func (s paritySources) Revision(o config.Desired) (string, error) {
	if s.revisionErr != nil {
		return "", s.revisionErr
	}
	return s.Sources.Revision(o)
}

// tripwire points every AWS client of this test process at a loopback
// server that counts the requests it gets and refuses each (access denied,
// which the SDK does not retry), with static credentials and no shared
// configuration, in region ("" = none). It returns the count.
func tripwire(t *testing.T, region string) *atomic.Int64 {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"__type":"AccessDeniedException","message":"the parity test's tripwire"}`))
	}))
	t.Cleanup(srv.Close)
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL": srv.URL, "AWS_ACCESS_KEY_ID": "AKIDPARITYTEST", "AWS_SECRET_ACCESS_KEY": "parity",
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": region, "AWS_DEFAULT_REGION": region,
		"AWS_ROLE_ARN": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "",
	} {
		t.Setenv(k, v)
	}
	return &calls
}

// parityInput is one configuration and commit, run as plan and as
// validate by TestValidateRaisesEveryClassPlanRaisesBeforeAWS.
type parityInput struct {
	args  []string // after required (the defaults' flags), unless bare
	bare  bool
	env   []string          // SOPS_AWS_SYNC_* variables
	files map[string]string // config files by name
	// region is the SDK chain's Region (AWS_REGION); "" = us-east-1.
	region string
	// docs are the commit's documents (name under the prefix → JSON);
	// nil = two documents, a and b.
	docs map[string]string
	// The loader's failure, at its stage (paritySources).
	revisionErr, openErr, decryptErr error
	// beside: the failure is found while decrypting, which a plan does
	// beside its first observation (run.Execute), so AWS may have been
	// asked meanwhile; the class still needs no AWS to be found.
	beside bool
}

// runBoth runs in as plan, then as validate (each a fresh command over the
// production factory), and returns the classes of each run's diagnostics
// and how many AWS requests the plan sent. noDecrypt runs validate with
// --no-decrypt (the pre-commit hook's and a fork's check).
func runBoth(t *testing.T, in parityInput, noDecrypt bool) (planned, validated []string, awsCalls int64) {
	t.Helper()
	region := in.region
	if region == "" {
		region = "us-east-1"
	}
	calls := tripwire(t, region)
	docs := in.docs
	if docs == nil {
		docs = map[string]string{"a": `{"k":"1"}`, "b": `{"k":"2"}`}
	}
	args := append(slices.Clone(required), in.args...)
	if in.bare {
		args = in.args
	}
	for i, newCmd := range []func(*factory.Factory) (string, error){
		func(f *factory.Factory) (string, error) { return runCmd(t, f, NewCmdPlan(f, nil), args...) },
		func(f *factory.Factory) (string, error) {
			if noDecrypt {
				return runCmd(t, f, NewCmdValidate(f, nil), append(slices.Clone(args), "--no-decrypt")...)
			}
			return runCmd(t, f, NewCmdValidate(f, nil), args...)
		},
	} {
		f := testFactory(t, in.env, in.files)
		var ports atomic.Int64
		f.Sources = paritySources{Sources: &runtest.Sources{Docs: docs, OpenErr: in.openErr, DecryptErr: in.decryptErr}, revisionErr: in.revisionErr, ports: &ports}
		got := classesOf(newCmd(f))
		if i == 0 {
			planned, awsCalls = got, calls.Load()
			continue
		}
		validated = got
		assert.Zero(t, ports.Load(), "validate built an AWS port")
		if !in.beside {
			// (A plan's observation beside decryption may still be
			// answered after the plan ended: only a plan that sent
			// nothing leaves a count validate must keep.)
			assert.Equal(t, awsCalls, calls.Load(), "validate sent an AWS request")
		}
	}
	return planned, validated, awsCalls
}

// classesOf is the classes of a run's diagnostics: those its error
// carries (the lines of stderr) and the error_class of each of its log
// records (a logged diagnostic is not repeated on stderr).
func classesOf(stdout string, err error) []string {
	var out []string
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		for _, d := range ds {
			out = append(out, d.Class)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		var rec struct {
			Class string `json:"error_class"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Class != "" {
			out = append(out, rec.Class)
		}
	}
	return out
}

// beforeAWSFamilies are the families of the classes a plan can raise
// before its first AWS call: what it reads without AWS (the command line,
// the settings, the commit, the documents) and the outputs it proves
// writable first. The others are found from AWS (credentials, observe,
// gate, apply, verify), by sync alone (plan: the reviewed plan), or are
// no check of the input (interrupted, internal, warning).
var beforeAWSFamilies = []diag.Family{
	diag.FamilyUsage, diag.FamilyConfig, diag.FamilyGit, diag.FamilySource, diag.FamilyName, diag.FamilyDecrypt,
	diag.FamilyPlaintext, diag.FamilyDesired, diag.FamilyAWS, diag.FamilyReport, diag.FamilyPlanfile,
}

// loaderStage is the stage of the loader (paritySources) that raises the
// classes of a family: the same production code (desired.Resolve,
// desired.Open, desired.Loading.Decrypt) for plan and validate.
func loaderStage(class string, d diag.Diagnostics) (parityInput, bool) {
	switch diag.FamilyOf(class) {
	case diag.FamilyGit:
		if class == diag.GitRepository || class == diag.GitRevision {
			return parityInput{revisionErr: d}, true
		}
		return parityInput{openErr: d}, true
	case diag.FamilySource, diag.FamilyName:
		return parityInput{openErr: d}, true
	case diag.FamilyDecrypt, diag.FamilyPlaintext, diag.FamilyDesired:
		return parityInput{decryptErr: d, beside: true}, true
	}
	return parityInput{}, false
}

// TestValidateRaisesEveryClassPlanRaisesBeforeAWS: every diagnostic class
// that plan can raise before its first AWS call, validate raises too (SPEC
// §15), on the same configuration and commit. The classes are those of
// the registry in beforeAWSFamilies: a new one without a row here fails
// the test. Each row runs plan over the production AWS set-up pointed at a
// tripwire and shows that plan raises the class without an AWS request
// (but for a class found beside the first observation), then validate
// must raise it too; a class plan cannot raise before AWS, or validate
// must not, says why instead. The loader's classes are injected at their
// stage: plan and validate run the same loader, and the rows show that
// validate reports each of them.
func TestValidateRaisesEveryClassPlanRaisesBeforeAWS(t *testing.T) {
	dir := t.TempDir()
	twoScopes := "repository-id: o/r\nsecret-prefix: team/app\naws-region: us-east-1\nrole-arn: arn:aws:iam::111111111111:role/sync\nscopes:\n  - name: one\n  - name: two\n"
	rows := map[string]parityInput{
		diag.ConfigUnknownKey:   {args: []string{"--config", "c.yaml"}, files: map[string]string{"c.yaml": "secret-prefx: x\n"}},
		diag.ConfigUnknownEnv:   {env: []string{"SOPS_AWS_SYNC_SECRET_PREFX=x"}},
		diag.ConfigFlagOnly:     {args: []string{"--config", "c.yaml"}, files: map[string]string{"c.yaml": "scope: one\n"}},
		diag.ConfigWrongType:    {args: []string{"--concurrency", "many"}},
		diag.ConfigInvalidValue: {args: []string{"--recovery-window-days", "6"}},
		diag.ConfigRequired:     {args: []string{"--repository-id", "o/r"}, bare: true},
		diag.ConfigFile:         {args: []string{"--config", "missing.yaml"}},
		diag.ConfigScopeAmbiguous: {args: []string{"--config", "c.yaml", "--max-deletions", "3"}, bare: true,
			files: map[string]string{"c.yaml": "repository-id: o/r\nsecret-prefix: team/app\nscopes:\n  - name: one\n  - name: two\n    secret-prefix: team/other\n"}},
		diag.ConfigNotPerScope: {args: []string{"--config", "c.yaml"}, bare: true,
			files: map[string]string{"c.yaml": "repository-id: o/r\nsecret-prefix: team/app\nscopes:\n  - name: one\n    log-level: debug\n"}},
		// Both scopes have a role of one account: plan judges the overlap
		// before any STS call.
		diag.ConfigScopeOverlap: {args: []string{"--config", "c.yaml"}, bare: true, files: map[string]string{"c.yaml": twoScopes}},
		// Found by the engine before its first AWS call; validate passed
		// all three until it applied engine.BeforeAWS.
		diag.ConfigAdoptNotDesired: {args: []string{"--adopt", "team/app/nothing"}},
		diag.ConfigAWSOwned:        {args: []string{"--aws-owned", `[{"secret":"nothing","keys":["/password"]}]`}},
		diag.ConfigReplicaRegion:   {args: []string{"--replica-regions", "eu-west-1"}, region: "eu-west-1"},

		diag.UsageStrayArgument: {args: []string{"extra"}},
		diag.UsageRepeatedFlag:  {args: []string{"--max-deletions", "1", "--max-deletions", "2"}},

		diag.ReportWriteFailed:      {args: []string{"--report-file", filepath.Join(dir, "missing", "r.json")}},
		diag.ReportNotRegularFile:   {args: []string{"--report-file", os.DevNull}},
		diag.PlanfileWriteFailed:    {args: []string{"--plan-file", filepath.Join(dir, "missing", "p.json")}},
		diag.PlanfileNotRegularFile: {args: []string{"--plan-file", os.DevNull}},
		diag.PlanfileSameFile:       {args: []string{"--plan-file", filepath.Join(dir, "same.json"), "--report-file", filepath.Join(dir, "same.json")}},
	}
	// Classes plan never raises before AWS, or validate rightly does not.
	apart := map[string]string{
		diag.UsageUnknownFlag:    "parsed by internal/cli/root for every command alike (root's tests)",
		diag.UsageFlagArgument:   "parsed by internal/cli/root for every command alike (root's tests)",
		diag.UsageBadFlag:        "parsed by internal/cli/root for every command alike (root's tests)",
		diag.UsageUnknownCommand: "no command runs",
		diag.UsageInvalid:        "parsed by internal/cli/root for every command alike (root's tests)",
		diag.AWSConfig: "the SDK's configuration of the machine that runs it (profile, shared files), not the repository's: " +
			"validate runs where no AWS is configured (a pre-commit hook, a fork's job with an empty environment)",
		diag.AWSNoRegion: "the machine's Region (AWS_REGION), not the repository's configuration: validate runs where none is set " +
			"(a pre-commit hook, a fork's job with an empty environment); a Region it does know, it checks replica-regions against",
		diag.ReportSourceRootsWriteFailed: "validate's own --source-roots-file",
		diag.ConfigTemplate:               "scopes generate's own template and flags (internal/scopegen, internal/cli/scopes)",
		diag.ConfigUnknownOU:              "scopes generate's --ou (internal/scopegen)",
		diag.ConfigGeneratedName:          "scopes generate's generated names (internal/scopegen)",
		diag.ConfigScopesFile:             "scopes generate --check's committed file (internal/scopegen)",
		diag.ReportScopesWriteFailed:      "scopes generate's --output",
		diag.ReportChangesWriteFailed:     "sync's --changes-file",
		diag.ReportChangesNotRegularFile:  "sync's --changes-file",
		diag.ReportChangesSameFile:        "sync's --changes-file",
		diag.PlanfileUnknownSchema:        "reading a plan file: show, sync --reviewed-plan",
		diag.PlanfileMalformed:            "reading a plan file: show, sync --reviewed-plan",
		diag.PlanfileUnreadable:           "reading a plan file: show, sync --reviewed-plan",
	}
	seen := 0
	for _, e := range diag.Entries() {
		if !slices.Contains(beforeAWSFamilies, e.Family) {
			continue
		}
		seen++
		in, ok := rows[e.Class]
		if why, isApart := apart[e.Class]; isApart {
			assert.False(t, ok, "%s has a row and a reason to be apart", e.Class)
			assert.NotEmpty(t, why, e.Class)
			continue
		}
		if !ok {
			in, ok = loaderStage(e.Class, diag.Diagnostics{diag.New(e.Class, diag.Document(1, "", false))})
		}
		if !assert.True(t, ok, "%s: a class plan may raise before AWS has no row: add one (a plan that raises it, which validate must raise too) or its reason to be apart", e.Class) {
			continue
		}
		t.Run(e.Class, func(t *testing.T) { assertParity(t, in, e.Class) })
	}
	for class := range rows {
		_, ok := diag.Lookup(class)
		assert.True(t, ok, "row of an unregistered class %s", class)
	}
	for class := range apart {
		_, ok := diag.Lookup(class)
		assert.True(t, ok, "reason for an unregistered class %s", class)
	}
	assert.Greater(t, seen, 50, "the registry's classes before AWS were enumerated")
}

// assertParity runs in as plan, which must raise class (before any AWS
// request, unless in.beside), and as validate, which must raise it too;
// and, for a class that needs no key (not beside), as validate
// --no-decrypt, which must raise it as well.
func assertParity(t *testing.T, in parityInput, class string) {
	t.Helper()
	planned, validated, calls := runBoth(t, in, false)
	require.Contains(t, planned, class, "the input does not make plan raise the class")
	if !in.beside {
		assert.Zero(t, calls, "plan raised it after an AWS request")
	}
	assert.Contains(t, validated, class, "validate passed what plan refuses without AWS (plan: %v)", planned)
	if in.beside {
		return
	}
	_, structural, _ := runBoth(t, in, true)
	assert.Contains(t, structural, class, "validate --no-decrypt passed what plan refuses without AWS, and needs no key to find (plan: %v)", planned)
}

// TestRegression_ValidatePassedAnAdoptEntryNoDocumentMapsTo: plan refuses
// an adopt entry that names no document of the commit before any AWS call
// (config:adopt-not-desired, the engine's check); validate passed it.
func TestRegression_ValidatePassedAnAdoptEntryNoDocumentMapsTo(t *testing.T) {
	assertParity(t, parityInput{args: []string{"--adopt", "team/app/a", "--adopt", "team/app/nothing"}}, diag.ConfigAdoptNotDesired)
}

// TestRegression_ValidatePassedAnAWSOwnedEntryThatFitsNoDocument: plan
// refuses an aws-owned entry that matches no document, or two entries
// matching one document, before any AWS call (config:aws-owned, the
// engine's awsOwnedInvalid; a key other than "" for a whole-value
// document is the same check, engine.BeforeAWS's tests); validate passed
// each.
func TestRegression_ValidatePassedAnAWSOwnedEntryThatFitsNoDocument(t *testing.T) {
	for name, owned := range map[string]string{
		"matches no document":   `[{"secret":"nothing","keys":["/password"]}]`,
		"two entries match one": `[{"secret":"a","keys":["/password"]},{"secret":"*","keys":["/token"]}]`,
	} {
		t.Run(name, func(t *testing.T) {
			assertParity(t, parityInput{args: []string{"--aws-owned", owned}}, diag.ConfigAWSOwned)
		})
	}
}

// TestRegression_ValidatePassedReplicaRegionsListingTheChainsRegion: with
// no aws-region, the scope's Region is the SDK chain's (AWS_REGION), and
// plan refuses replica-regions listing it, or a Region of another
// partition, before any AWS call (config:replica-region, the engine's
// check: config cannot see that Region); validate, which reads the same
// chain without a network call, passed it.
func TestRegression_ValidatePassedReplicaRegionsListingTheChainsRegion(t *testing.T) {
	for name, replicas := range map[string]string{"its own Region": "eu-west-1", "another partition": "cn-north-1"} {
		t.Run(name, func(t *testing.T) {
			assertParity(t, parityInput{args: []string{"--replica-regions", replicas}, region: "eu-west-1"}, diag.ConfigReplicaRegion)
		})
	}
}
