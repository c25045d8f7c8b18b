package importer

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// writeAndProve writes the candidates' documents, stages them, and plans
// the staged tree (read by its id, as the pre-commit hook reads the
// index) with their names added to the scope's adopt list, their new
// aws-owned entries and adopt-require-match (as the configuration import
// writes): every one must plan adopt with value equal (SPEC
// §18). Otherwise, or when writing or staging fails, the documents are
// unstaged and removed and the import ends invalid (exit 3).
func (req Request) writeAndProve(ctx context.Context, src run.Sources, log *slog.Logger, cands []candidate, warns diag.Diagnostics) Result {
	show := req.Options.Output.ShowResourceNames
	var written []string
	undo := func() {
		// Not under ctx: an interrupted import still removes what it wrote.
		_ = req.Git.Unstage(context.WithoutCancel(ctx), written)
		for _, p := range written {
			abs := filepath.Join(req.Git.Top, filepath.FromSlash(p))
			_ = os.Remove(abs)
			// The directories it made, once empty (os.Remove refuses any
			// other).
			for dir := filepath.Dir(abs); len(dir) > len(req.Git.Top) && os.Remove(dir) == nil; dir = filepath.Dir(dir) {
			}
		}
	}
	for _, c := range cands {
		if ctx.Err() != nil {
			undo()
			return stopped(log, vocab.PhaseApply, append(warns, diag.New(diag.InterruptedSignal, diag.Subject{}).WithCause(ctx.Err())))
		}
		if err := writeDocument(filepath.Join(req.Git.Top, filepath.FromSlash(c.path)), c.doc); err != nil {
			undo()
			return stopped(log, vocab.PhaseApply, append(warns, diag.New(diag.ImportWrite, diag.Document(c.ordinal, c.path, show))))
		}
		written = append(written, c.path)
		log.Info("document written", slog.String(vocab.FieldPhase, vocab.PhaseApply),
			slog.String(vocab.FieldResource, model.Redaction{ShowNames: show}.Label(c.ordinal, c.path)))
	}
	if err := req.Git.Stage(ctx, written); err != nil {
		undo()
		return stopped(log, vocab.PhaseApply, append(warns, diag.New(diag.ImportGit, diag.Subject{})))
	}
	tree, err := req.Git.WriteTree(ctx)
	if err != nil {
		undo()
		return stopped(log, vocab.PhaseApply, append(warns, diag.New(diag.ImportGit, diag.Subject{})))
	}
	log.Info("documents staged", slog.String(vocab.FieldPhase, vocab.PhaseApply), slog.Int(vocab.FieldCount, len(written)))
	res := Result{}
	for _, c := range cands {
		d := Document{Ordinal: c.ordinal, Name: c.name, Path: c.path}
		res.Adopt = append(res.Adopt, c.name)
		if c.added {
			d.AWSOwned = c.owned
			res.AWSOwned = append(res.AWSOwned, *c.owned)
		}
		res.Written = append(res.Written, d)
	}
	opts := req.Options
	sc := opts.Scopes[0]
	sc.Desired.Revision, sc.Desired.AllowTree = tree, true
	sc.Engine.Adopt = mergeNames(sc.Engine.Adopt, res.Adopt)
	sc.Engine.AdoptRequireMatch = true
	sc.Engine.AWSOwned = append(slices.Clone(sc.Engine.AWSOwned), res.AWSOwned...)
	opts.Scopes = []config.Scope{sc}
	got := run.Execute(ctx, src, run.Request{Mode: engine.ModePlan, Options: opts, Log: req.Log, Clock: req.Clock})
	if ctx.Err() != nil {
		// Interrupted (a signal, the run timeout) before the proof: what
		// was written is unproved, so it goes.
		undo()
		return Result{Outcome: run.Outcome{Run: engine.Result{Status: vocab.StatusInterrupted, Diagnostics: warns}}}
	}
	if ds := notAdopted(got, cands, show); len(ds) > 0 {
		undo()
		for _, d := range ds {
			log.Error(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan),
				slog.String(vocab.FieldStatus, string(vocab.StatusInvalid))}, d.Attrs()...)...)
		}
		got.Run.Status = vocab.StatusInvalid
		got.Run.Diagnostics = append(append(warns, got.Run.Diagnostics...), ds...)
		return Result{Outcome: got}
	}
	got.Run.Diagnostics = append(warns, got.Run.Diagnostics...)
	res.Outcome = got
	log.Info("documents imported", slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, len(written)))
	return res
}

// mergeNames is the adopt list with names added (each once, the list's
// order kept, the new names after it).
func mergeNames(list, names []string) []string {
	out := slices.Clone(list)
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// notAdopted is one import:not-adopted per imported name the plan of
// the written tree does not adopt with value equal (every name when the
// plan did not reach a decision: its status is neither drift nor
// converged).
func notAdopted(got run.Outcome, cands []candidate, show bool) diag.Diagnostics {
	ops := map[string]vocab.Action{}
	reasons := map[string]vocab.Reason{}
	decided := len(got.Scopes) == 1 && got.Run.Status == "" &&
		(got.Scopes[0].Status == vocab.StatusDrift || got.Scopes[0].Status == vocab.StatusConverged)
	if decided {
		for _, o := range got.Scopes[0].Plan {
			ops[o.Name], reasons[o.Name] = o.Action, o.Reason
		}
	}
	var ds diag.Diagnostics
	for _, c := range cands {
		if ops[c.name] != vocab.ActionAdopt || reasons[c.name] != vocab.ReasonValueEqual {
			ds = append(ds, diag.New(diag.ImportNotAdopted, diag.Document(c.ordinal, c.path, show)))
		}
	}
	return ds
}

// dryRun is the result of --dry-run: each candidate's document logged as
// it would be written (its kind decided by the value, which is not
// read), nothing read or written.
func (req Request) dryRun(log *slog.Logger, cands []candidate, warns diag.Diagnostics) Result {
	show := req.Options.Output.ShowResourceNames
	logWarnings(log, warns)
	res := Result{}
	for _, c := range cands {
		p := c.stem + ".sops.*"
		d := Document{Ordinal: c.ordinal, Name: c.name, Path: p}
		if c.added {
			d.AWSOwned = c.owned
			res.AWSOwned = append(res.AWSOwned, *c.owned)
		}
		res.Written = append(res.Written, d)
		res.Adopt = append(res.Adopt, c.name)
		log.Info("document would be written", slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldResource, model.Redaction{ShowNames: show}.Label(c.ordinal, p)))
	}
	status := vocab.StatusConverged
	if len(cands) > 0 {
		status = vocab.StatusDrift
	}
	res.Outcome = run.Outcome{Run: engine.Result{Status: status, Verification: vocab.VerificationNotRun, Diagnostics: warns}}
	return res
}
