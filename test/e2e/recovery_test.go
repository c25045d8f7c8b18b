package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// advisedArgs finds the arguments a next action tells the operator to
// re-run with ("re-run once with ARGS (…", "re-run with ARGS, …").
var advisedArgs = regexp.MustCompile(`re-run (?:once )?with (--[^,(;]*?)(?: \(|,|;|$)`)

// recoveryForms returns the backquoted argument forms (starting with --) of
// docs/recovery.md's row for class, with NAME and COUNT replaced by the
// scope and the count of this run: the forms the doc advises.
func recoveryForms(t *testing.T, class, scope string, count int) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(moduleRootDir(t), "docs", "recovery.md"))
	require.NoError(t, err)
	var row string
	for _, line := range strings.Split(string(raw), "\n") {
		if cells := strings.Split(line, " | "); strings.HasPrefix(line, "| ") && len(cells) > 2 && strings.Contains(cells[0], "`"+class+"`") {
			row = line
			break
		}
	}
	require.NotEmpty(t, row, "docs/recovery.md has no row for %s", class)
	var forms []string
	for _, m := range regexp.MustCompile("`(--[^`]*)`").FindAllStringSubmatch(row, -1) {
		f := strings.ReplaceAll(m[1], "NAME", scope)
		forms = append(forms, strings.ReplaceAll(f, "COUNT", fmt.Sprint(count)))
	}
	return forms
}

func moduleRootDir(t *testing.T) string {
	t.Helper()
	root, err := moduleRoot()
	require.NoError(t, err)
	return root
}

// gateMode is one way an operator runs the tool: the base arguments of a
// sync (the scope's deletion limit of 1 set as the operator keeps it), the
// config file, and the scope the records name.
type gateMode struct {
	name  string
	args  []string
	opts  runOpts
	scope string
}

// TestRecovery_EveryGateAdviceWorksInBothModes (issue 30, §3 and its Done
// when): for every gate docs/recovery.md lists with a one-off flag as its
// advice (the deletion limit, the empty scope, and a retired scope whose
// source root Git dropped), in single-scope mode and in config-file mode
// (a file listing two scopes), the real binary is stopped by the gate
// (exit 3, not one mutating call), the diagnostic's next line (plan file)
// advises arguments that docs/recovery.md's row gives for that mode, and
// exactly those arguments, added to the same sync, pass the gate and
// converge. In config-file mode the same flags without --scope are
// config:scope-ambiguous (the form the gate advised before issue 30), and
// the other scope is never touched.
func TestRecovery_EveryGateAdviceWorksInBothModes(t *testing.T) {
	for _, mode := range []string{"single-scope", "config-file"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t)
			e := startEmulator(t)
			docs := f.standardDocs()
			require.NoError(t, os.WriteFile(filepath.Join(f.Repo, "secrets", "README.md"), []byte("not a document\n"), 0o600))
			other := "other/" + f.Prefix
			f.writeDoc("others/o.sops.json", `{"k": "CANARY-other-`+token(6)+`"}`, "")
			f.Values = append(f.Values, "CANARY-other-")
			f.Names = append(f.Names, other+"/o", "o.sops.json")
			f.commit("documents and a README")
			m := gateMode{name: mode, args: f.args("sync"), opts: runOpts{Env: []string{"SOPS_AWS_SYNC_MAX_DELETIONS=1"}}, scope: "default"}
			if mode == "config-file" {
				m = gateMode{name: mode, args: []string{"sync"}, scope: "main", opts: runOpts{Config: "repository-id: " + f.RepoID + "\nscopes:\n" +
					"  - name: main\n    source-root: secrets\n    secret-prefix: " + f.Prefix + "\n    max-deletions: 1\n" +
					"  - name: other\n    source-root: others\n    secret-prefix: " + other + "\n",
					Env: []string{"AWS_ENDPOINT_URL_STS=" + e.URL}}} // two scopes learn the base account
			}
			r := f.run(e, m.opts, m.args...)
			created := 3
			if mode == "config-file" {
				created = 4
			}
			expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: created})
			otherBefore := e.secret(other + "/o")
			if mode == "config-file" {
				require.NotNil(t, otherBefore)
			}

			// The deletion limit: two documents gone, the limit is 1.
			f.removeDoc(docs[0].Rel)
			f.removeDoc(docs[1].Rel)
			f.commit("two documents gone")
			f.gatePassesWithTheAdvice(t, e, m, diag.GateMaxDeletions, 2, vocab.Counts{ScheduleDelete: 2, Unchanged: 1})

			// The empty scope: the last document gone, the README keeps
			// the source root in Git.
			f.removeDoc(docs[2].Rel)
			f.commit("last document gone")
			f.gatePassesWithTheAdvice(t, e, m, diag.GateEmptyScope, 1, vocab.Counts{ScheduleDelete: 1})

			// A retired scope: a document again, then every file of the
			// source root gone, so Git has no directory.
			f.writeDoc("secrets/late.sops.json", `{"k": "CANARY-late-`+token(6)+`"}`, "")
			f.Values = append(f.Values, "CANARY-late-")
			f.Names = append(f.Names, f.Prefix+"/late", "late.sops.json")
			f.commit("one more")
			r = f.run(e, m.opts, append(slices.Clone(m.args), scopeArgs(m)...)...)
			expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
			assert.Equal(t, 1, r.Report.Counts.Create)
			f.removeDoc("secrets/late.sops.json")
			f.removeDoc("secrets/README.md")
			f.commit("retire the scope")
			f.gatePassesWithTheAdvice(t, e, m, diag.SourceMissingRoot, 1, vocab.Counts{ScheduleDelete: 1})

			if mode == "config-file" {
				after := e.secret(other + "/o")
				require.NotNil(t, after)
				assert.Equal(t, otherBefore.ARN, after.ARN, "the other scope's secret is the one created first")
				assert.Nil(t, after.DeletedDate, "the other scope is never deleted from")
			}
		})
	}
}

// scopeArgs is --scope NAME in config-file mode (so that the sync runs
// the gated scope alone), nothing in single-scope mode.
func scopeArgs(m gateMode) []string {
	if m.opts.Config == "" {
		return nil
	}
	return []string{"--scope", m.scope}
}

// gatePassesWithTheAdvice runs m's sync, which class must stop (exit 3,
// nothing written, count the record's count where the class has one),
// reads the advised arguments from the diagnostic's next line, checks
// docs/recovery.md gives them for this mode, and re-runs with them: the
// run converges with want. In config-file mode the advised flags without
// --scope NAME are config:scope-ambiguous.
func (f *fixture) gatePassesWithTheAdvice(t *testing.T, e *emu, m gateMode, class string, count int, want vocab.Counts) {
	t.Helper()
	before := e.mutatingCalls()
	r, v, _ := f.runPlan(e, m.opts, m.args...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.Equal(t, before, e.mutatingCalls(), "%s: nothing written behind the gate", class)
	var next string
	for _, sc := range v.Scopes {
		for _, d := range sc.Diagnostics {
			if d.Class == class {
				assert.Equal(t, m.scope, sc.Name, "the plan file names the stopped scope")
				next = d.Next
			}
		}
	}
	require.NotEmpty(t, next, "%s: no diagnostic of the class in the plan file:\n%s", class, planview.Text(v))
	if class == diag.GateMaxDeletions {
		rec := findRecord(r.records(t), func(rec map[string]any) bool { return rec["error_class"] == class })
		require.NotNil(t, rec, r.Stdout)
		assert.Equal(t, m.scope, rec["scope"])
		assert.EqualValues(t, count, rec["count"], "the record's count is the deletions planned")
	}
	match := advisedArgs.FindStringSubmatch(next)
	require.NotNil(t, match, "%s: the next line advises no arguments: %q", class, next)
	advised := strings.Fields(match[1])
	assert.Equal(t, m.opts.Config != "", strings.HasPrefix(match[1], "--scope "+m.scope+" "),
		"%s in %s mode: next line %q", class, m.name, next)
	assert.Contains(t, recoveryForms(t, class, m.scope, count), match[1],
		"%s: docs/recovery.md does not give the advised %q for %s mode", class, match[1], m.name)

	if m.opts.Config != "" {
		r = f.run(e, m.opts, append(slices.Clone(m.args), advised[2:]...)...)
		require.Equal(t, 3, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "(config:scope-ambiguous)", "the flags alone beside scopes:")
		assert.Equal(t, before, e.mutatingCalls())
	}
	r = f.run(e, m.opts, append(slices.Clone(m.args), advised...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
	want.Unchanged = r.Report.Counts.Unchanged // the other documents', and secrets already scheduled for deletion
	assert.Equal(t, want, r.Report.Counts, "%s: the advised re-run", class)
	if class != diag.SourceMissingRoot { // an absent root stays refused without allow-empty
		r = f.run(e, m.opts, append(slices.Clone(m.args), scopeArgs(m)...)...)
		expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
		assert.Zero(t, r.Report.Counts.Operations(), "the next run without the one-off flags does nothing")
	}
}
