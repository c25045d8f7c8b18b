package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/test/outputs"
)

// The outputs × targets × results table (SPEC §7, §16): every output a
// run writes — the report, the plan file, show's text of it, its Markdown
// (the pull-request comment's and the job summary's plan section), sync's
// changes file, the GitLab note — for every target, at every ending the
// tool has: converged, drift, each gate and invalid input (exit 3), a
// conflict (4), a failed write, a failed observation and a scope whose
// account cannot be reached (5), a failed verification (6), an
// interruption (130). Each cell is one run of the
// built binary against the emulator (faults from its fault controls, no
// sleep), judged by test/outputs: written, valid against its own reader,
// in its target's words, and valid against its published JSON Schema
// (schemas/). A plan cell also runs the GitLab component's
// plan job on the same state and judges the note it posts.
//
// One emulator per target, its cells in turn (faults are the emulator's,
// not a cell's); the targets in parallel. The job summary's own rendering
// is the Action's: action/test/unit/summary.test.ts.

// outTarget is one target's column: how the CLI and the GitLab job reach
// it and how the emulator plays each fault on it.
type outTarget struct {
	target model.Target
	// env are the variables that point a run at the target on e.
	env func(e *emu) []string
	// denyWrite is the IAM action of a value write, denyList that of
	// discovery.
	denyWrite, denyList string
	// exists is the third create answered "already exists" without
	// taking effect (the third: the two sent before it take effect
	// whatever the order the run sends them in): the scripted fault and
	// the error code a record names.
	exists     emulator.ScriptedFault
	existsCode string
	// foreign makes a resource of name that no scope owns.
	foreign func(e *emu, name string)
}

var outTargets = []outTarget{
	{
		target:    model.TargetSecretsManager,
		env:       func(*emu) []string { return nil },
		denyWrite: "secretsmanager:PutSecretValue", denyList: "secretsmanager:ListSecrets",
		exists:     emulator.ScriptedFault{Operation: "CreateSecret", Nth: 3, Fault: "error:ResourceExistsException"},
		existsCode: "ResourceExistsException",
		foreign: func(e *emu, name string) {
			_, err := e.sdk().CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{
				Name: aws.String(name), SecretString: aws.String(`{"made":"by hand"}`)})
			require.NoError(e.t, err)
		},
	},
	{
		target: model.TargetParameterStore,
		env: func(e *emu) []string {
			return []string{"AWS_ENDPOINT_URL_SSM=" + e.URL, "SOPS_AWS_SYNC_TARGET=" + string(model.TargetParameterStore)}
		},
		denyWrite: "ssm:PutParameter", denyList: "ssm:DescribeParameters",
		exists:     emulator.ScriptedFault{Operation: "PutParameter", Nth: 3, Fault: "error:ParameterAlreadyExists"},
		existsCode: "ParameterAlreadyExists",
		foreign: func(e *emu, name string) {
			e.putParam(name, `{"made":"by hand"}`, ssmtypes.ParameterTypeSecureString)
		},
	},
}

// outCell is one cell being played: its fixture, the column's emulator
// and target, the standard documents.
type outCell struct {
	f    *fixture
	e    *emu
	tg   outTarget
	docs []doc
}

// opts are the run options of a CLI run of the cell.
func (c *outCell) opts() runOpts { return runOpts{Env: c.tg.env(c.e)} }

// converge syncs the standard documents (three creates).
func (c *outCell) converge() {
	c.f.t.Helper()
	r := c.f.run(c.e, c.opts(), c.f.args("sync")...)
	expect(c.f.t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
}

// outResult is one row: a run's ending, how the cell gets there, and what
// it must say.
type outResult struct {
	name    string
	command string
	code    int
	status  vocab.Status
	verif   vocab.Verification
	counts  *vocab.Counts
	class   string
	// conflict is the conflict class the plan holds.
	conflict vocab.ConflictClass
	// arrange brings the cell to the row's state (faults included) and
	// returns the command's extra arguments, and the GitLab job's inputs.
	arrange func(c *outCell) (args []string, inputs map[string]string)
	// says are lines every rendering holds, in the target's words.
	says func(c *outCell) []string
	// sts points the run's STS at the emulator (a cell that assumes a role).
	sts bool
}

var outResults = []outResult{
	{name: "plan-converged", command: "plan", code: 0, status: vocab.StatusConverged, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{Unchanged: 3},
		arrange: func(c *outCell) ([]string, map[string]string) {
			c.converge()
			return []string{"--detailed-exit-code"}, nil
		},
		says: func(c *outCell) []string {
			return []string{"No changes: " + c.tg.target.Words().Service + " matches the commit."}
		}},
	{name: "sync-converged", command: "sync", code: 0, status: vocab.StatusConverged, verif: vocab.VerificationConverged,
		counts:  &vocab.Counts{Create: 3},
		arrange: func(*outCell) ([]string, map[string]string) { return nil, nil }},
	{name: "drift", command: "plan", code: 2, status: vocab.StatusDrift, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{Update: 1, ScheduleDelete: 1, Unchanged: 1},
		arrange: func(c *outCell) ([]string, map[string]string) {
			c.converge()
			c.f.writeDoc(c.docs[0].Rel, `{"password": "CANARY-drift-`+token(6)+`"}`, "")
			c.f.Values = append(c.f.Values, "CANARY-drift-")
			c.f.removeDoc(c.docs[2].Rel)
			c.f.commit("update one, remove one")
			return []string{"--detailed-exit-code"}, nil
		},
		says: func(c *outCell) []string {
			w := c.tg.target.Words()
			return []string{"1 " + w.DeletePlanned + ",", " " + w.DeleteOperation + " (no document in the commit)"}
		}},
	{name: "gate-max-deletions", command: "sync", code: 3, status: vocab.StatusInvalid, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{Unchanged: 1}, class: diag.GateMaxDeletions,
		arrange: func(c *outCell) ([]string, map[string]string) {
			c.converge()
			c.f.removeDoc(c.docs[0].Rel)
			c.f.removeDoc(c.docs[1].Rel)
			c.f.commit("remove two")
			return []string{"--max-deletions", "1"}, nil
		}},
	{name: "invalid-document", command: "plan", code: 3, status: vocab.StatusInvalid, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{}, class: diag.DecryptNoKey,
		arrange: func(c *outCell) ([]string, map[string]string) {
			other, err := newRecipient()
			require.NoError(c.f.t, err)
			c.f.writeDoc(c.docs[1].Rel, "api_key: CANARY-nokey-"+token(6)+"\n", other)
			c.f.Values = append(c.f.Values, "CANARY-nokey-")
			c.f.commit("a document for another key")
			return []string{"--detailed-exit-code"}, nil
		}},
	{name: "conflict", command: "plan", code: 4, status: vocab.StatusConflict, verif: vocab.VerificationNotRun,
		conflict: vocab.ConflictOwnership,
		arrange: func(c *outCell) ([]string, map[string]string) {
			c.tg.foreign(c.e, c.docs[0].Name)
			return []string{"--detailed-exit-code"}, nil
		}},
	{name: "apply-failed", command: "sync", code: 5, status: vocab.StatusApplyFailed, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{Unchanged: 2}, class: diag.ApplyFailed,
		arrange: func(c *outCell) ([]string, map[string]string) {
			c.converge()
			c.f.writeDoc(c.docs[1].Rel, "api_key: CANARY-denied-"+token(6)+"\n", "")
			c.f.Values = append(c.f.Values, "CANARY-denied-")
			c.f.commit("update one")
			c.e.setFaults(emulator.Faults{Denied: []string{c.tg.denyWrite}})
			return nil, nil
		},
		says: func(c *outCell) []string {
			return []string{"update failed (apply:failed): AccessDeniedException: grant " + c.tg.denyWrite}
		}},
	{name: "observation-failed", command: "plan", code: 5, status: vocab.StatusObservationFailed, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{}, class: diag.ObserveFailed,
		arrange: func(c *outCell) ([]string, map[string]string) {
			c.e.setFaults(emulator.Faults{Denied: []string{c.tg.denyList}})
			return []string{"--detailed-exit-code"}, nil
		},
		says: func(c *outCell) []string {
			return []string{"observation failed (observe:failed): AccessDeniedException: grant " + c.tg.denyList}
		}},
	{name: "verification-failed", command: "sync", code: 6, status: vocab.StatusVerificationFailed, verif: vocab.VerificationFailed,
		counts: &vocab.Counts{Create: 2}, class: diag.VerifySecondWriter,
		arrange: func(c *outCell) ([]string, map[string]string) {
			c.e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{c.tg.exists}})
			return nil, nil
		},
		says: func(c *outCell) []string {
			return []string{"(verify:second-writer): " + c.tg.existsCode}
		}},
	{name: "unreachable", command: "sync", code: 5, status: vocab.StatusUnreachable, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{}, class: diag.CredentialsScopeUnreachable, sts: true,
		arrange: func(c *outCell) ([]string, map[string]string) {
			// STS refuses the scope's account: with --max-unreachable-scopes 1
			// the scope is skipped, named unreachable, and nothing is written.
			c.e.setFaults(emulator.Faults{STSRefuseAccounts: []string{emulator.DefaultAccountID}})
			return []string{"--role-arn", "arn:aws:iam::" + emulator.DefaultAccountID + ":role/e2e-outputs",
				"--max-unreachable-scopes", "1"}, nil
		}},
	{name: "interrupted", command: "sync", code: 130, sts: true, status: vocab.StatusInterrupted, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{}, class: diag.InterruptedTimeout,
		arrange: func(c *outCell) ([]string, map[string]string) {
			// The role's AssumeRole never answers: the run timeout ends
			// the run, whatever the machine's speed.
			c.e.setFaults(emulator.Faults{STSHang: []string{"AssumeRole"}})
			return []string{"--role-arn", "arn:aws:iam::" + emulator.DefaultAccountID + ":role/e2e-outputs",
				"--run-timeout", "2s", "--operation-timeout", "10m"}, nil
		}},
}

// TestOutputsTable plays every row of outResults on every target of
// outTargets and judges every output (test/outputs.Check).
func TestOutputsTable(t *testing.T) {
	need(t)
	for _, tg := range outTargets {
		t.Run(string(tg.target), func(t *testing.T) {
			t.Parallel()
			e := startEmulator(t)
			for _, row := range outResults {
				t.Run(row.name, func(t *testing.T) { playOutputs(t, e, tg, row) })
			}
		})
	}
}

// playOutputs plays one cell: a fresh repository with the standard
// documents and a prefix of its own on the column's emulator, the row's
// state, one run with every output, show of its plan file, and for a plan
// the GitLab plan job on the same state.
func playOutputs(t *testing.T, e0 *emu, tg outTarget, row outResult) {
	e := e0.in(t)
	e.setFaults(emulator.Faults{})
	f := newFixture(t)
	c := &outCell{f: f, e: e, tg: tg, docs: f.standardDocs()}
	args, inputs := row.arrange(c)

	dir := t.TempDir()
	plan, chg := filepath.Join(dir, "plan.json"), filepath.Join(dir, "changes.json")
	args = append(args, "--plan-file", plan)
	if row.command == "sync" {
		args = append(args, "--changes-file", chg)
	}
	o := c.opts()
	if row.sts {
		o.Env = append(o.Env, "AWS_ENDPOINT_URL_STS="+e.URL)
	}
	r := f.run(e, o, f.args(row.command, args...)...)
	require.Equal(t, row.code, r.Code, "exit code\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	got := outputs.Got{Report: r.RawReport, Plan: readIfThere(t, plan), Changes: readIfThere(t, chg)}
	require.NotNil(t, got.Plan, "no plan file\nstdout:\n%s", r.Stdout)
	f.scan(e, o, result{Stdout: string(got.Plan)})
	got.Text, got.Markdown = f.showBoth(e, got.Plan)

	want := outputs.Want{Target: tg.target, Command: row.command, Status: row.status, Verification: row.verif,
		Counts: row.counts, Class: row.class, Conflict: row.conflict}
	if row.says != nil {
		want.Says = row.says(c)
	}
	if row.command == "plan" {
		got.Note = gitLabNote(t, c, row, inputs)
	}
	outputs.Check(t, want, got)
}

// readIfThere is the file at p, or nil when there is none.
func readIfThere(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return b
}

// gitLabNote runs the GitLab component's plan job of a merge request
// pipeline on the cell's state and returns the Markdown of the note it
// posted (after its marker); the job's exit code is the row's.
func gitLabNote(t *testing.T, c *outCell, row outResult, inputs map[string]string) string {
	t.Helper()
	glTools(t)
	h := newGitLabHarnessOn(t, c.f, c.e)
	sha := c.f.git("rev-parse", "HEAD")
	r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "sh",
		PipelineID: "801", JobID: "9301", Inputs: inputs, Env: c.tg.env(c.e)})
	require.Equal(t, row.code, r.Code, "the plan job's exit code\nstdout:\n%s", r.Stdout)
	var posts []glRequest
	for _, q := range h.gl.requests() {
		if q.Method == http.MethodPost {
			posts = append(posts, q)
		}
	}
	require.Len(t, posts, 1, "one note created\nstdout:\n%s", r.Stdout)
	var sent struct {
		Body string `json:"body"`
	}
	require.NoError(t, json.Unmarshal([]byte(posts[0].Body), &sent))
	marker := glMarkerRE.FindString(sent.Body)
	require.NotEmpty(t, marker, "the note starts with the hidden marker")
	assert.Equal(t, marker+r.PlanMD, sent.Body, "the note is the marker and the CLI's Markdown")
	return strings.TrimPrefix(sent.Body, marker)
}
