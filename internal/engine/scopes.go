package engine

import (
	"context"
	"log/slog"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// ScopeRun is one scope of a run of several (SPEC §10): what Run takes for
// one scope, plus its quota bucket.
type ScopeRun struct {
	// Bucket is the scope's quota bucket, (account, Region) in any
	// encoding the caller chooses: the scopes of one bucket apply one
	// after another in the order given, different buckets in parallel. The
	// engine never logs it (it may hold an account id).
	Bucket string
	Config Config
	Port   Port
	// Log is the scope's logger; the caller gives it the scope field, so
	// every record of the scope carries it (SPEC §10).
	Log *slog.Logger
	// Arrival is the desired state as it arrives (SPEC §3.2;
	// model.Arrival; a state loaded at once: model.Arrived), the one way
	// desired values enter the engine: the scope's first observation
	// runs with the arrival's outline while the values arrive, and the
	// scope is planned only once they all have. A scope whose arrival is
	// rejected ends invalid with no plan, so nothing is applied in any
	// scope; the caller reports the rejected documents.
	Arrival *model.Arrival
	// Reviewed, when set, is the plan that was reviewed (SPEC §14): its
	// Review is asked once the scope is planned, when no scope of the run
	// is blocked and before anything is applied anywhere (sync and plan
	// alike). A scope with differences ends invalid with them as its
	// diagnostics, each logged; then nothing is applied in any scope, as
	// when a scope is blocked.
	Reviewed Reviewer
}

// Reviewer is the plan a scope's reviewer approved (SPEC §14; run.scopeReview
// in production).
type Reviewer interface {
	// Review is given the scope's Result as planned (status drift or
	// converged, verification not-run) and returns the differences from the
	// plan that was reviewed (plan:stale), empty when there is none.
	Review(planned Result) diag.Diagnostics
	// Commit is the commit the reviewed plan was made at (its
	// git_revision, 40 hex), which the run's record of applying it names.
	Commit() string
	// Skipped names the run's scopes skipped as unreachable under
	// --max-unreachable-scopes (SPEC §17), which RunScopes never sees:
	// the record of applying the reviewed plan names them. nil for none.
	Skipped() []string
}

// RunScopes runs several scopes as one run (SPEC §10) and returns one
// Result per scope, in the order given.
//
// All or nothing at planning: every scope is observed and planned first
// (buckets in parallel, one bucket's scopes in order). When any scope is
// blocked (a conflict, a gate, a failed observation, an interruption;
// Prepared.Blocked), nothing is applied anywhere, and every other scope
// reports its plan (drift or converged, verification not-run). In plan mode
// nothing is applied either. Otherwise the buckets apply in parallel, one
// bucket's scopes in order, sharing one halt: after any failure (a scope
// that ends other than converged, or an operation that fails) no new
// operation starts in any scope; operations in flight finish, and a scope
// with operations left ends apply-failed with apply:halted (interrupted
// instead when the run's context is done: interrupted wins). Every scope
// whose apply finished is verified (Prepared.Apply).
//
// At most parallel buckets are worked on at once, in planning and in
// apply (--parallel-scopes, SPEC §17; 0 = no bound): a bucket takes a
// slot for its scopes one after another and frees it when its last scope
// is done, buckets taking slots in the order of their first scope.
//
// log takes the run's own records (no scope field); it may be nil.
func RunScopes(ctx context.Context, scopes []ScopeRun, parallel int, log *slog.Logger) []Result {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &halt{}
	prepared := make([]*Prepared, len(scopes))
	if unread := adoptNotDesired(scopes); unread {
		// An adopt entry of some scope names no document: the run is
		// refused before any AWS call in any scope (SPEC §11). The scopes
		// at fault carry config:adopt-not-desired; the others are not
		// observed and end invalid too.
		log.Error("an adopt entry names no document; nothing was read from Secrets Manager in any scope",
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.ConfigAdoptNotDesired))
		for i, s := range scopes {
			prepared[i] = &Prepared{r: newRunner(s.Config, s.Arrival, s.Port, s.Log, h), status: vocab.StatusInvalid}
			prepared[i].r.adoptNotDesired()
		}
		return results(prepared)
	}
	inBuckets(scopes, parallel, func(i int) {
		s := scopes[i]
		prepared[i] = prepare(ctx, s.Config, s.Arrival, s.Port, s.Log, h)
	})

	blocked, pending := 0, 0
	for _, p := range prepared {
		if p.Blocked() {
			blocked++
		}
		if p.Pending() {
			pending++
		}
	}
	stale := 0
	if blocked == 0 {
		for i, s := range scopes {
			if s.Reviewed == nil {
				continue
			}
			if ds := s.Reviewed.Review(prepared[i].Result()); len(ds) > 0 {
				prepared[i].refuse(ds)
				stale++
			}
		}
	}
	if blocked > 0 || stale > 0 {
		notApplied(scopes, prepared)
	} else {
		applyingReviewed(log, scopes, prepared)
	}
	switch {
	case blocked > 0:
		log.Error("a scope is blocked at planning; nothing was applied in any scope",
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, blocked))
	case stale > 0:
		log.Error("the plan differs from the reviewed plan; nothing was applied in any scope",
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.PlanStale),
			slog.Int(vocab.FieldCount, stale))
	case pending > 0:
		inBuckets(scopes, parallel, func(i int) { prepared[i].Apply(ctx) })
	}

	return results(prepared)
}

// applyingReviewed logs, for a sync given a reviewed plan that every
// scope's plan equalled (SPEC §14), that the reviewed plan is applied: how
// many operations it holds over the scopes and the commit it was reviewed
// at, and the scopes of the run skipped as unreachable, whose operations
// are not counted (planview.ReviewedTally). A run without a reviewed plan
// logs nothing.
func applyingReviewed(log *slog.Logger, scopes []ScopeRun, prepared []*Prepared) {
	commit, n := "", 0
	var skipped []string
	for i, s := range scopes {
		if s.Reviewed == nil {
			continue
		}
		commit, skipped = s.Reviewed.Commit(), s.Reviewed.Skipped()
		for _, o := range prepared[i].Result().Plan {
			if o.Action.IsOperation() {
				n++
			}
		}
	}
	if commit == "" {
		return
	}
	log.Info("applying "+planview.ReviewedTally(n, commit, skipped),
		slog.String(vocab.FieldPhase, vocab.PhaseApply), slog.Int(vocab.FieldCount, n))
}

// refuse ends a planned scope invalid with ds (a reviewed plan it differs
// from): each is logged and recorded; nothing of its plan is applied.
func (p *Prepared) refuse(ds diag.Diagnostics) {
	p.status = vocab.StatusInvalid
	for _, d := range ds {
		p.r.log.Error(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid))}, d.Attrs()...)...)
		p.r.ledger.problem(d)
	}
}

// notApplied records, in each scope of a sync whose plan waited to be
// applied, a warning (warning:not-applied) naming the first scope that
// was blocked at planning or refused as stale: why nothing of its plan was
// applied although its own status is drift. Unnamed scopes (Config.Scope
// "") are named by nobody.
func notApplied(scopes []ScopeRun, prepared []*Prepared) {
	by := ""
	for i, p := range prepared {
		if p.status != "" && p.Blocked() {
			by = scopes[i].Config.Scope
			break
		}
	}
	if by == "" {
		return
	}
	d := diag.New(diag.WarningNotApplied, diag.Subject{}).
		WithSummary("not applied: scope " + by + " was blocked at planning, so nothing of this scope's plan was applied")
	for _, p := range prepared {
		if p.Pending() {
			p.r.log.Warn(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}, d.Attrs()...)...)
			p.r.ledger.problem(d)
		}
	}
}

func results(prepared []*Prepared) []Result {
	out := make([]Result, len(prepared))
	for i, p := range prepared {
		out[i] = p.Result()
	}
	return out
}

// adoptNotDesired reports whether an adopt entry of any scope names a
// secret no document of that scope maps to (plan.NotDesired).
func adoptNotDesired(scopes []ScopeRun) bool {
	for _, s := range scopes {
		if len(plan.NotDesired(s.Arrival.Outline(), s.Config.Adopt)) > 0 {
			return true
		}
	}
	return false
}

// inBuckets calls fn(i) for every scope: the buckets in parallel, at most
// parallel of them at once (0 = no bound), one bucket's scopes one after
// another in the order given; a bucket waits for its slot in the order of
// its first scope. It returns when every call has returned.
func inBuckets(scopes []ScopeRun, parallel int, fn func(i int)) {
	var order []string
	members := map[string][]int{}
	for i, s := range scopes {
		if _, ok := members[s.Bucket]; !ok {
			order = append(order, s.Bucket)
		}
		members[s.Bucket] = append(members[s.Bucket], i)
	}
	if parallel <= 0 || parallel > len(order) {
		parallel = len(order)
	}
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, b := range order {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			for _, i := range members[b] {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
