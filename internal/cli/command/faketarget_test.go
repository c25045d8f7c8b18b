package command

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/show"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run/runtest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	outtable "github.com/sops-aws-sync/sops-aws-sync/test/outputs"
)

// The outputs × results table (test/e2e/outputs_table_test.go) for a
// third target that exists only in this test: a store with its own ARN
// form (arn:aws:fakestore:REGION:ACCOUNT:entry/NAME), IAM prefix
// (fakestore) and words ("Fake Store", "entry"), that deletes at once and
// has none of the optional capabilities. Its row is added to the target
// table by model.AddTestTarget for the length of the test; its adapter is
// fakeStore, a Port in memory. A run of the built binary cannot reach it
// (no product adapter serves it, and the product's table has no row for
// it), so each cell runs the command in-process, the production path from
// the flags to the outputs (run.Execute over the engine, the outputs
// written as the binary writes them, show's rendering), with fakeStore as
// the scope's port: every output is judged by test/outputs.Check, as the
// e2e table's are.

// fakeTarget is the test-only target's row.
var fakeTarget = model.TestTarget{
	Target: "fake-store", Service: "fakestore", ARNResource: "entry/",
	MaxValue: 1 << 16, MaxDescription: 256,
	Words: model.TargetWords{Service: "Fake Store", Resource: "entry", Resources: "entries",
		DeleteTitle: "Remove", DeleteColumn: "remove", DeletePlanned: "to remove",
		DeleteOperation: "remove", Deletion: "immediate"},
}

// fakeARN is the ARN of name in the fake store's form.
func fakeARN(name string) string {
	return "arn:aws:fakestore:eu-west-1:111122223333:" + fakeTarget.ARNResource + name
}

// fakeEntry is one entry of the fake store.
type fakeEntry struct {
	value       []byte
	tags        map[string]string
	description string
	version     int
}

// fakeStore is the fake target's store behind the engine's core port, in
// memory, with the faults the table plays: writes or listings refused
// (AccessDeniedException), the third create answered "exists" without
// taking effect (the two before it take effect whatever their order), a
// listing that never answers.
type fakeStore struct {
	mu      sync.Mutex
	entries map[string]*fakeEntry

	denyWrite, denyList, existsThird, hang bool
	creates                                int
}

func newFakeStore() *fakeStore { return &fakeStore{entries: map[string]*fakeEntry{}} }

// nameOf is the entry name of id (a name or the fake store's ARN).
func nameOf(id string) string {
	if i := strings.Index(id, ":"+fakeTarget.ARNResource); strings.HasPrefix(id, "arn:") && i >= 0 {
		return id[i+1+len(fakeTarget.ARNResource):]
	}
	return id
}

func denied(op string) error {
	return &engine.Error{Operation: op, Code: "AccessDeniedException", Fault: engine.FaultClient, AccessDenied: true}
}

func (s *fakeStore) observed(name string) plan.ObservedSecret {
	e, ok := s.entries[name]
	if !ok {
		return plan.ObservedSecret{Name: name}
	}
	return plan.ObservedSecret{Exists: true, ARN: fakeARN(name), NamedARN: true, Name: name, Tags: maps.Clone(e.tags),
		Description: e.description, Versions: []plan.Version{{ID: strconv.Itoa(e.version), Stages: []string{"AWSCURRENT"}}}}
}

// ListCandidates implements engine.Port: the entries the tool manages,
// of scopeDigest's scope ("" for every scope).
func (s *fakeStore) ListCandidates(ctx context.Context, scopeDigest string) ([]engine.Candidate, error) {
	s.mu.Lock()
	hang := s.hang
	s.mu.Unlock()
	if hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.denyList {
		return nil, denied("ListEntries")
	}
	var out []engine.Candidate
	for name, e := range s.entries {
		if e.tags[model.TagManagedBy] == model.ManagedByValue && (scopeDigest == "" || e.tags[model.TagScope] == scopeDigest) {
			out = append(out, engine.Candidate{Name: name, ARN: fakeARN(name), Tags: maps.Clone(e.tags)})
		}
	}
	return out, nil
}

// Describe implements engine.Port.
func (s *fakeStore) Describe(_ context.Context, id string) (plan.ObservedSecret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.observed(nameOf(id)), nil
}

// GetCurrentValues implements engine.Port.
func (s *fakeStore) GetCurrentValues(_ context.Context, reqs []engine.ValueRequest) ([]plan.CurrentValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]plan.CurrentValue, len(reqs))
	for i, r := range reqs {
		e, ok := s.entries[nameOf(r.Name)]
		if !ok {
			out[i] = plan.CurrentValue{Missing: true}
			continue
		}
		v := strconv.Itoa(e.version)
		out[i] = plan.CurrentValue{VersionID: v, HasString: true, String: bytes.Clone(e.value), StageMismatch: v != r.CurrentVersionID}
	}
	return out, nil
}

// Create implements engine.Port.
func (s *fakeStore) Create(_ context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creates++
	if _, ok := s.entries[req.Name]; ok || s.existsThird && s.creates == 3 {
		return engine.WriteResult{}, &engine.Error{Operation: "CreateEntry", Code: "EntryAlreadyExists", Fault: engine.FaultClient, Exists: true}
	}
	if s.denyWrite {
		return engine.WriteResult{}, denied("CreateEntry")
	}
	s.entries[req.Name] = &fakeEntry{value: bytes.Clone(req.Value), tags: maps.Clone(req.Tags), description: req.Description, version: 1}
	return engine.WriteResult{ARN: fakeARN(req.Name), VersionID: "1"}, nil
}

// PutValue implements engine.Port.
func (s *fakeStore) PutValue(_ context.Context, id string, value []byte, _ model.ValueKind, _ string) (engine.WriteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.denyWrite {
		return engine.WriteResult{}, denied("PutEntry")
	}
	e, ok := s.entries[nameOf(id)]
	if !ok {
		return engine.WriteResult{}, &engine.Error{Operation: "PutEntry", Code: "EntryNotFound", Fault: engine.FaultClient, NotFound: true}
	}
	e.value, e.version = bytes.Clone(value), e.version+1
	return engine.WriteResult{ARN: fakeARN(nameOf(id)), VersionID: strconv.Itoa(e.version)}, nil
}

// Delete implements engine.Port: the entry is removed at once (the fake
// store has no recovery window).
func (s *fakeStore) Delete(_ context.Context, id string, _ int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.denyWrite {
		return denied("RemoveEntry")
	}
	delete(s.entries, nameOf(id))
	return nil
}

// UpdateMetadata implements engine.Port: the description (the store has
// no key of its own).
func (s *fakeStore) UpdateMetadata(_ context.Context, id string, _, description *string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[nameOf(id)]; ok && description != nil {
		e.description = *description
	}
	return nil
}

// Tag implements engine.Port.
func (s *fakeStore) Tag(_ context.Context, id string, tags map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[nameOf(id)]; ok {
		maps.Copy(e.tags, tags)
	}
	return nil
}

// put makes an entry by hand (no ownership tags): another tool's.
func (s *fakeStore) put(name, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[name] = &fakeEntry{value: []byte(value), tags: map[string]string{}, version: 1}
}

// fakeRow is one ending of the table for the fake target: how the store
// and the documents get there, the command, and what it must say.
type fakeRow struct {
	name    string
	command string
	code    int
	status  vocab.Status
	verif   vocab.Verification
	counts  *vocab.Counts
	class   string
	// conflict is the conflict class the plan holds.
	conflict vocab.ConflictClass
	// arrange brings the store and the sources to the row's state and
	// returns the command's extra arguments.
	arrange func(t *testing.T, c *fakeCell) []string
	says    []string
}

// fakeCell is one cell being played: the store, the sources, the factory.
type fakeCell struct {
	store *fakeStore
	src   *runtest.Sources
}

var fakeDocs = map[string]string{"db": `{"password":"p","port":5432}`, "api": `{"key":"k"}`, "cache": `{"url":"u"}`}

// converge runs a sync of fakeDocs into an empty store.
func (c *fakeCell) converge(t *testing.T) {
	t.Helper()
	_, _, err := runFake(t, c, "sync")
	require.NoError(t, err, "the first sync")
}

var fakeRows = []fakeRow{
	{name: "plan-converged", command: "plan", status: vocab.StatusConverged, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{Unchanged: 3}, says: []string{"No changes: Fake Store matches the commit."},
		arrange: func(t *testing.T, c *fakeCell) []string { c.converge(t); return nil }},
	{name: "sync-converged", command: "sync", status: vocab.StatusConverged, verif: vocab.VerificationConverged,
		counts:  &vocab.Counts{Create: 3},
		arrange: func(*testing.T, *fakeCell) []string { return nil }},
	{name: "drift", command: "plan", code: 2, status: vocab.StatusDrift, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{Update: 1, ScheduleDelete: 1, Unchanged: 1},
		says:   []string{"1 to remove,", " remove (no document in the commit)", "Remove (1):"},
		arrange: func(t *testing.T, c *fakeCell) []string {
			c.converge(t)
			c.src.Docs = map[string]string{"db": `{"password":"q"}`, "api": fakeDocs["api"]}
			return []string{"--detailed-exit-code"}
		}},
	{name: "gate-max-deletions", command: "sync", code: 3, status: vocab.StatusInvalid, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{Unchanged: 1}, class: diag.GateMaxDeletions,
		arrange: func(t *testing.T, c *fakeCell) []string {
			c.converge(t)
			c.src.Docs = map[string]string{"db": fakeDocs["db"]}
			return []string{"--max-deletions", "1"}
		}},
	{name: "invalid-document", command: "plan", code: 3, status: vocab.StatusInvalid, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{}, class: diag.DecryptNoKey,
		arrange: func(_ *testing.T, c *fakeCell) []string {
			c.src.DecryptErr = diag.Diagnostics{diag.New(diag.DecryptNoKey, diag.Document(1, "secrets/db.sops.json", false))}
			return nil
		}},
	{name: "conflict", command: "plan", code: 4, status: vocab.StatusConflict, verif: vocab.VerificationNotRun,
		conflict: vocab.ConflictOwnership, says: []string{"an entry with this name exists", "to take over an entry made by hand"},
		arrange: func(_ *testing.T, c *fakeCell) []string {
			c.store.put("team/app/db", "by hand")
			return nil
		}},
	{name: "apply-failed", command: "sync", code: 5, status: vocab.StatusApplyFailed, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{Unchanged: 2}, class: diag.ApplyFailed, says: []string{"update failed (apply:failed): AccessDeniedException"},
		arrange: func(t *testing.T, c *fakeCell) []string {
			c.converge(t)
			c.src.Docs = map[string]string{"db": `{"password":"denied"}`, "api": fakeDocs["api"], "cache": fakeDocs["cache"]}
			c.store.denyWrite = true
			return nil
		}},
	{name: "observation-failed", command: "plan", code: 5, status: vocab.StatusObservationFailed, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{}, class: diag.ObserveFailed, says: []string{"observation failed (observe:failed): AccessDeniedException"},
		arrange: func(_ *testing.T, c *fakeCell) []string { c.store.denyList = true; return nil }},
	{name: "verification-failed", command: "sync", code: 6, status: vocab.StatusVerificationFailed, verif: vocab.VerificationFailed,
		counts: &vocab.Counts{Create: 2}, class: diag.VerifySecondWriter, says: []string{"(verify:second-writer): EntryAlreadyExists"},
		arrange: func(_ *testing.T, c *fakeCell) []string { c.store.existsThird = true; return nil }},
	{name: "interrupted", command: "sync", code: 130, status: vocab.StatusInterrupted, verif: vocab.VerificationNotRun,
		counts: &vocab.Counts{}, class: diag.InterruptedTimeout,
		arrange: func(_ *testing.T, c *fakeCell) []string { c.store.hang = true; return []string{"--run-timeout", "1s"} }},
}

// runFake runs command in-process on the cell (the fake target, its
// sources) with args; it returns the plan file's and the changes file's
// paths (the latter "" for plan) beside the command's error.
func runFake(t *testing.T, c *fakeCell, command string, args ...string) (planPath, changesPath string, err error) {
	t.Helper()
	dir := t.TempDir()
	planPath, reportPath := filepath.Join(dir, "plan.json"), filepath.Join(dir, "report.json")
	full := append([]string{"--secret-prefix", "team/app", "--repository-id", "o/r", "--aws-region", "eu-west-1",
		"--plan-file", planPath, "--report-file", reportPath}, args...)
	f := testFactory(t, []string{"SOPS_AWS_SYNC_TARGET=" + string(fakeTarget.Target)}, nil)
	f.Sources = c.src
	newCmd := NewCmdPlan
	if command == "sync" {
		newCmd = NewCmdSync
		changesPath = filepath.Join(dir, "changes.json")
		full = append(full, "--changes-file", changesPath)
	}
	_, err = runCmd(t, f, newCmd(f, nil), full...)
	return planPath, changesPath, err
}

// readOrNil is the file at p, or nil when p is "" or names nothing.
func readOrNil(t *testing.T, p string) []byte {
	t.Helper()
	if p == "" {
		return nil
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return b
}

// rendered is show's rendering of the plan file p in format (maxBytes as
// --max-bytes: the GitLab note's).
func rendered(t *testing.T, p, format string, maxBytes int) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, show.Render(&b, &show.Options{Path: p, Format: format, MaxBytes: maxBytes}))
	return b.String()
}

// TestOutputsTable_TestOnlyTarget plays every row of fakeRows on the
// test-only target and judges every output with test/outputs.Check: the
// report, the plan file, show's text and Markdown (the pull-request
// comment's and the job summary's plan section), the changes file, and
// for a plan the GitLab note's Markdown (show --max-bytes 990000, as the
// component renders it). Not parallel: the row is added to the target
// table for this test alone.
func TestOutputsTable_TestOnlyTarget(t *testing.T) {
	defer model.AddTestTarget(fakeTarget)()
	require.Empty(t, fakeTarget.Target.Capabilities(), "the row has no optional capability")
	require.Empty(t, engine.CapabilitiesOf(newFakeStore()), "its adapter is the core port alone")
	for _, setting := range []string{"replica-regions", "aws-owned"} {
		_, refused := fakeTarget.Target.Refuses(setting)
		require.True(t, refused, "the row refuses %s, which needs a capability it lacks", setting)
	}
	for _, row := range fakeRows {
		t.Run(row.name, func(t *testing.T) {
			c := &fakeCell{store: newFakeStore(), src: &runtest.Sources{Docs: maps.Clone(fakeDocs)}}
			c.src.Port = c.store
			args := row.arrange(t, c)
			planPath, changesPath, err := runFake(t, c, row.command, args...)
			require.Equal(t, row.code, exitcode.For(err), "exit code: %v", err)
			got := outtable.Got{Report: readOrNil(t, filepath.Join(filepath.Dir(planPath), "report.json")),
				Plan: readOrNil(t, planPath), Changes: readOrNil(t, changesPath)}
			require.NotNil(t, got.Plan, "no plan file")
			got.Text = rendered(t, planPath, show.FormatText, 0)
			got.Markdown = rendered(t, planPath, show.FormatMarkdown, 0)
			if row.command == "plan" {
				got.Note = rendered(t, planPath, show.FormatMarkdown, 990000)
			}
			outtable.Check(t, outtable.Want{Target: fakeTarget.Target, Command: row.command, Status: row.status,
				Verification: row.verif, Counts: row.counts, Class: row.class, Conflict: row.conflict, Says: row.says}, got)
		})
	}
}
