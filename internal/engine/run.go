package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Run observes the scope of want through sm, plans, and in ModeSync applies
// and verifies (SPEC §4–§7). want is the desired state as it arrives (a
// state loaded at once: model.Arrived). It never returns an error: every
// failure is a Status. A cancelled ctx (signal or run timeout) yields
// StatusInterrupted.
//
// Statuses: plan mode → drift (operations planned) or converged; conflict
// when any conflict blocks the plan; invalid when the empty-scope gate
// holds or the arrival is rejected; observation-failed when the first
// observation fails (access denied included); apply-failed when an
// operation fails closed; verification-failed when a second rebuild would
// be needed or verification finds a real mismatch;
// verification-inconclusive when verification times out on propagation
// lag.
//
// Counts (sync): create/update/restore/schedule_delete are the operations
// that took effect in this run (follow-up updates after restores included,
// across a rebuild); unchanged are the final plan's unchanged names that
// this run did not touch; conflicts are the final plan's.
func Run(ctx context.Context, cfg Config, want *model.Arrival, sm Port, log *slog.Logger) Result {
	p := Prepare(ctx, cfg, want, sm, log)
	p.Apply(ctx)
	return p.Result()
}

// Prepared is one scope's run after observation and planning, before
// anything is applied: what Run does in two steps, so that a run of several
// scopes (RunScopes) plans every scope before it applies any (SPEC §10,
// all or nothing at planning). A Prepared is used from one goroutine.
type Prepared struct {
	r *runner
	// status is what planning ended with; "" while the plan's operations
	// wait to be applied (sync with operations planned).
	status vocab.Status
	// plan is the last plan built (the zero Plan when the first
	// observation failed).
	plan plan.Plan
}

// Prepare observes the scope of want through sm and plans (SPEC §4, §5):
// the first half of Run. It never mutates anything and never returns an
// error: a failure is the Prepared's status (see Run for the statuses
// planning can reach).
func Prepare(ctx context.Context, cfg Config, want *model.Arrival, sm Port, log *slog.Logger) *Prepared {
	return prepare(ctx, cfg, want, sm, log, nil)
}

// prepare is Prepare for a scope of a run whose scopes share h: the
// arrival's outline is observed while its values arrive (ScopeRun.Arrival).
func prepare(ctx context.Context, cfg Config, arrival *model.Arrival, sm Port, log *slog.Logger, h *halt) *Prepared {
	r := newRunner(cfg, arrival, sm, log, h)
	status, p := r.prepare(ctx)
	return &Prepared{r: r, status: status, plan: p}
}

// Pending reports whether the plan holds operations that Apply would make
// (sync mode only; plan mode never applies).
func (p *Prepared) Pending() bool { return p.status == "" }

// Blocked reports whether planning stopped this scope: a conflict, a gate
// (invalid), a failed observation, or an interruption. In a run of several
// scopes one blocked scope means nothing is applied anywhere (SPEC §10).
func (p *Prepared) Blocked() bool {
	switch p.status {
	case "", vocab.StatusConverged, vocab.StatusDrift:
		return false
	}
	return true
}

// Apply applies the plan and verifies (SPEC §6) when operations are
// pending; otherwise it does nothing. It is called at most once.
//
// In a run of several scopes it raises the run's halt when the apply
// itself ended other than done (an operation failed closed, a second
// writer, a new conflict, a rebuild that failed or was needed twice, an
// interruption), never because of what verification found: verification
// only reads, and what it finds (a configured replica Failed or still
// InProgress, propagation lag, another writer's change) concerns this
// scope's secrets alone. So a scope with nothing left to write whose
// replica failed long ago never stops another scope's writes, and whether
// another bucket's operations start never depends on how far this
// scope's verification has got (the halt must be
// deterministic).
func (p *Prepared) Apply(ctx context.Context) {
	if !p.Pending() {
		return
	}
	status, last := p.r.applyAll(ctx, p.plan)
	if status != "" {
		p.r.halt.raise(p.r.scope)
		p.status, p.plan = status, last
	} else {
		p.status, p.plan = p.r.verify(ctx)
	}
	p.r.learnChangeARNs(ctx)
}

// learnChangeARNs describes, once, each name whose change took effect
// without an ARN the run learned since: a Parameter Store create
// (PutParameter returns none) in a run whose apply stopped, or whose
// verification never observed the name, before anything showed its ARN.
// The changes file names every change by its ARN (internal/changes); a
// run that observed each name already makes no call. A describe that
// fails, or a cancelled run, leaves the ARN unknown.
func (r *runner) learnChangeARNs(ctx context.Context) {
	for _, name := range r.ledger.unnamed() {
		if ctx.Err() != nil {
			return
		}
		if o, err := r.port.Describe(ctx, name); err == nil && o.Exists {
			r.ledger.learnARN(name, o.ARN)
		}
	}
}

// Result is what the scope reached. A plan whose operations were never
// applied (another scope blocked the run, or the run halted before this
// scope began) reports drift with verification not-run: it still differs
// from the commit and nothing of it was written.
func (p *Prepared) Result() Result {
	status := p.status
	if status == "" {
		status = vocab.StatusDrift
	}
	return p.r.ledger.result(status, p.plan)
}

// prepare observes and plans: the status planning ends with ("" when the
// plan's operations are to be applied) and the plan built (the zero Plan
// when the first observation failed). r.want is the arrival's outline
// until the values arrive: the first observation runs meanwhile (it needs
// only names and sources), and the plan is built only from the whole
// desired state (valuesWhole).
func (r *runner) prepare(ctx context.Context) (vocab.Status, plan.Plan) {
	if r.adoptNotDesired() || r.awsOwnedInvalid() {
		return vocab.StatusInvalid, plan.Plan{}
	}
	r.warnARNSuffixNames()
	if d, bad := replicaRefusal(r.policy.Region, r.policy.Replicas, r.replicasSetting); bad {
		// aws-region came from the SDK chain, so config could not check
		// replica-regions against it.
		r.ledger.problem(d)
		r.log.Error("replica-regions lists the scope's own Region or a Region of another partition; nothing was read",
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.ConfigReplicaRegion))
		return vocab.StatusInvalid, plan.Plan{}
	}
	phase := r.startPhase()
	octx, stop := context.WithCancel(ctx)
	defer stop()
	values := r.awaitValues(ctx, stop)
	obs, others, err := r.observe(octx, vocab.PhasePlan, nil, listManaged)
	if status, whole := r.valuesWhole(ctx, values, err == nil, len(obs)); !whole {
		return status, plan.Plan{}
	}
	if err == nil {
		// The names the first observation took from a listing, now that
		// the values are whole (confirm).
		err = r.confirm(octx, obs)
	}
	if err != nil {
		return r.observationFailed(ctx, err), plan.Plan{}
	}
	r.shareObserved(obs)
	r.checkOrphans(others)
	r.warnAdoptOwned(obs)
	p := r.buildPlan(obs, phase)
	if status, stop := r.gate(p); stop {
		return status, p
	}
	if r.mode == ModePlan {
		r.warnReplicaWaits(p)
		// A configured replica that is Failed is drift although nothing
		// is planned: the scope cannot converge (every sync ends
		// verification-failed) until an operator acts, so the scheduled
		// drift check (plan --detailed-exit-code) must not call it
		// converged. InProgress settles by itself and is not drift.
		if len(p.Ops) > 0 || len(failedReplicas(p)) > 0 {
			return vocab.StatusDrift, p
		}
		return vocab.StatusConverged, p
	}
	if len(p.Ops) == 0 && len(p.Waiting) == 0 {
		// The initial direct observation is the proof (SPEC §6 [beyond]).
		r.ledger.proved(StateDigestOf(r.want, obs))
		return vocab.StatusConverged, p
	}
	// With no operation but a configured replica that is not InSync, the
	// (empty) apply is followed by verification, which waits for it or
	// reports it failed (SPEC §12).
	return "", p
}

// valuesWhole waits for the end of awaitValues' wait (values), saying so
// when the first observation ended first (observed: without an error; n
// names). When the values are not whole the scope ends with the status it
// returns, with no plan, whatever the observation found: interrupted when
// ctx ended, else invalid (the caller reports the rejected desired state,
// with the diagnostics and exit code a run that read nothing would give;
// an arrival finished without every value is this run's internal error).
func (r *runner) valuesWhole(ctx context.Context, values <-chan error, observed bool, n int) (vocab.Status, bool) {
	var err error
	select {
	case err = <-values:
	default:
		if observed {
			r.log.Info("scope observed; waiting for the desired state to finish decrypting", slog.String(vocab.FieldPhase, vocab.PhasePlan),
				slog.Int(vocab.FieldCount, n))
		}
		err = <-values
	}
	switch {
	case err == nil:
		return "", true
	case ctx.Err() != nil:
		return vocab.StatusInterrupted, false
	case incomplete(err):
		r.ledger.problem(diag.New(diag.Internal, diag.Subject{}))
		r.log.Error("the desired state finished without every value; nothing was planned",
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.Internal))
	}
	return vocab.StatusInvalid, false
}

// warnReplicaWaits records, for plan, the configured replicas that are
// not InSync (plan.Plan.Waiting): one warning with their count, how many
// failed and the Regions of the Failed ones (Region codes only, never
// AWS's status message; the plan file and its renderings, so the drift
// issue, carry it), and one record per Failed replica with its Region. A
// Failed one makes the plan drift (the caller). A sync waits for them in
// its verification instead.
func (r *runner) warnReplicaWaits(p plan.Plan) {
	if len(p.Waiting) == 0 {
		return
	}
	failedOnes := failedReplicas(p)
	failed := len(failedOnes)
	r.log.Warn("configured replicas are not InSync", slog.String(vocab.FieldPhase, vocab.PhasePlan),
		slog.Int(vocab.FieldCount, len(p.Waiting)), slog.String(vocab.FieldErrorClass, diag.WarningReplicasNotInSync))
	for _, w := range failedOnes {
		r.log.Warn("a configured replica is Failed; see docs/recovery.md", slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldResource, r.label(w.Name)), slog.String(vocab.FieldErrorClass, diag.WarningReplicasNotInSync),
			slog.String(vocab.FieldRegion, w.Region))
	}
	what := fmt.Sprintf("%d configured replicas are not InSync (%d Failed, %d InProgress)", len(p.Waiting), failed, len(p.Waiting)-failed)
	if len(p.Waiting) == 1 {
		what = fmt.Sprintf("1 configured replica is not InSync (%d Failed, %d InProgress)", failed, 1-failed)
	}
	if regions := failedRegions(failedOnes); regions != "" {
		what += "; Failed in " + regions
	}
	r.ledger.problem(diag.New(diag.WarningReplicasNotInSync, diag.Subject{}).WithSummary(what))
}

// applyAll applies p, rebuilding the plan at most once: it returns ""
// when every operation took effect (verification follows), else the
// status the apply ended with; and the last plan built.
func (r *runner) applyAll(ctx context.Context, p plan.Plan) (vocab.Status, plan.Plan) {
	for rebuilt := false; ; rebuilt = true {
		switch r.apply(ctx, p) {
		case outDone:
			return "", p
		case outInterrupted:
			return vocab.StatusInterrupted, p
		case outHalted:
			d := diag.New(diag.ApplyHalted, diag.Subject{})
			if by := r.halt.raisedBy(); by != "" && by != r.scope {
				d = d.WithSummary("halted: scope " + by + " failed, so this scope's remaining operations were not started")
			}
			r.ledger.problem(d)
			r.log.Error("apply halted: another scope of the run failed; no new operation was started",
				slog.String(vocab.FieldPhase, vocab.PhaseApply), slog.String(vocab.FieldErrorClass, diag.ApplyHalted))
			return vocab.StatusApplyFailed, p
		case outConflict:
			return vocab.StatusConflict, p
		case outFailed:
			return vocab.StatusApplyFailed, p
		case outSecondWriter:
			return vocab.StatusVerificationFailed, p
		case outRebuild:
			if rebuilt {
				r.log.Error("rebuild budget exhausted", slog.String(vocab.FieldPhase, vocab.PhaseApply))
				r.ledger.failUnrepairedRaces()
				r.ledger.failUnapplied(p)
				return vocab.StatusVerificationFailed, p
			}
		}
		r.log.Info("rebuilding plan", slog.String(vocab.FieldPhase, vocab.PhasePlan))
		phase := r.startPhase()
		obs, _, err := r.observe(ctx, vocab.PhasePlan, r.ledger.touchedNames(), listScope)
		if err != nil {
			if ctx.Err() != nil {
				return vocab.StatusInterrupted, p
			}
			r.log.Error("observation failed", append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}, errAttrs(err)...)...)
			r.ledger.problem(diag.New(diag.ObserveFailed, diag.Subject{}))
			r.ledger.failure("", failureOf(diag.ObserveFailed, err, false))
			return vocab.StatusApplyFailed, p
		}
		p = r.buildPlan(obs, phase)
		if status, stop := r.gate(p); stop {
			return status, p
		}
	}
}

// buildPlan plans from one observation (plan.Build), records the plan as
// the one the run shows (ledger.planned) and logs it with the summary of
// the phase that began at phase.
func (r *runner) buildPlan(obs observation, phase phaseStart) plan.Plan {
	p := plan.Build(r.want, obs, r.policy)
	r.ledger.planned(p)
	r.log.Info("plan built", r.summary(phase, slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, p.Counts().Operations()))...)
	for _, op := range p.Ops {
		r.log.Debug("planned", append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldOperation, string(op.Action)), slog.String(vocab.FieldResource, r.label(op.Name))}, r.deletion(op.Action)...)...)
	}
	return p
}

// warnARNSuffixNames logs one warning per desired name that ends like an
// ARN's random suffix ("-" + six characters): AWS's partial-ARN lookup may
// take it for another secret's ARN, so the engine addresses it by full ARN
// once known (SPEC §3.4). Labels are ordinals unless ShowResourceNames.
func (r *runner) warnARNSuffixNames() {
	for _, s := range r.want.Secrets {
		if model.SuffixLooksLikeARN(s.Name) {
			r.log.Warn("secret name ends like an ARN suffix; it will be addressed by full ARN once known",
				slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldResource, r.label(s.Name)))
		}
	}
}

// adoptNotDesired refuses the run before any AWS call when an adopt entry
// names a secret that no document of this commit maps to (SPEC §11:
// config:adopt-not-desired, status invalid, exit 3). It logs the count
// (names only with ShowResourceNames: an entry that is no document's name
// is not in the commit's cleartext).
func (r *runner) adoptNotDesired() bool {
	d, missing := adoptRefusal(r.want, slices.Collect(maps.Keys(r.policy.Adopt)), r.adoptSetting)
	if len(missing) == 0 {
		return false
	}
	attrs := []any{slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.ConfigAdoptNotDesired),
		slog.Int(vocab.FieldCount, len(missing))}
	if r.showNames {
		attrs = append(attrs, slog.String(vocab.FieldResource, strings.Join(missing, ",")))
	}
	r.log.Error("adopt names secrets that no document of this commit maps to; nothing was read from Secrets Manager", attrs...)
	r.ledger.problem(d)
	return true
}

// warnAdoptOwned warns, once per run, about adopt entries whose secret
// this scope already owns (SPEC §11: the entry is a no-op; the secret is
// planned like every owned secret): one record per name and one warning
// diagnostic with their count for the plan file.
func (r *runner) warnAdoptOwned(obs observation) {
	owned := plan.AlreadyOwned(r.policy.Rules, obs)
	for _, n := range owned {
		r.log.Warn("adopt names a secret this scope already owns; remove the entry",
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldResource, r.label(n)),
			slog.String(vocab.FieldErrorClass, diag.WarningAdoptOwned))
	}
	if len(owned) > 0 {
		r.ledger.problem(diag.New(diag.WarningAdoptOwned, settingOr(r.adoptSetting, config.Adopt)).
			WithSummary(plural(len(owned), "adopt entry names a secret this scope already owns; the entry does", "adopt entries name secrets this scope already owns; the entries do") + " nothing"))
	}
}

// settingOr is subject, or the setting key by its name alone when subject
// is zero (a Config built without where its settings came from).
func settingOr(subject diag.Subject, key string) diag.Subject {
	if subject.Setting == "" {
		return diag.Subject{Setting: key}
	}
	return subject
}

// plural is "1 one" or "n many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ClassDeletionLimit is the error class of a plan blocked by --max-deletions
// (docs/recovery.md, exit 3).
const ClassDeletionLimit = diag.GateMaxDeletions

// gate stops on conflicts (nothing is mutated, SPEC §4.1), on the
// empty-scope gate (SPEC §5) and on the deletion limit (--max-deletions).
func (r *runner) gate(p plan.Plan) (vocab.Status, bool) {
	switch {
	case len(p.Conflicts) > 0:
		r.logConflicts(vocab.PhasePlan, p)
		return vocab.StatusConflict, true
	case p.EmptyScopeGate:
		flags := r.authorize(p, "--allow-empty")
		r.ledger.problem(diag.New(diag.GateEmptyScope, diag.Subject{}).WithNext(emptyScopeNext(flags, r.listed)))
		r.log.Error("empty desired state would delete the whole scope; to authorize, re-run with "+flags,
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, p.Counts().ScheduleDelete))
		return vocab.StatusInvalid, true
	case r.unfillable(p), r.oversized(p):
		return vocab.StatusInvalid, true
	case p.DeletionLimitGate:
		flags := r.authorize(p, "")
		r.ledger.problem(diag.New(diag.GateMaxDeletions, diag.Subject{}).WithNext(deletionLimitNext(flags)))
		r.log.Error(fmt.Sprintf("plan would make more deletions than --max-deletions allows (%d); nothing was changed: check the source root and prefix, or to authorize them re-run once with %s", *r.policy.MaxDeletions, flags),
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, ClassDeletionLimit),
			slog.Int(vocab.FieldCount, p.Deletions()))
		return vocab.StatusInvalid, true
	}
	return "", false
}

// authorize is the command-line arguments that let a re-run of this scope
// past its gates: flag (may be ""), and --max-deletions with the planned
// deletions when they are over the limit, in the form that works in this
// mode (config.OneOffArgs: with --scope NAME beside a config file's scopes:).
func (r *runner) authorize(p plan.Plan, flag string) string {
	flags := flag
	if p.DeletionLimitGate {
		flags = strings.TrimSpace(flags + " --" + config.MaxDeletions + " " + strconv.Itoa(p.Deletions()))
	}
	return config.OneOffArgs(r.listed, flags)
}

// deletionLimitNext is gate:max-deletions' next action with the arguments
// that authorize this plan's deletions once (authorize).
func deletionLimitNext(flags string) string {
	return "check why the documents are gone (a moved directory, a wrong --source-root, a revert); to authorize them, re-run once with " +
		flags + " (replica removals count as deletions); keep the lower limit for later runs"
}

// emptyScopeNext is gate:empty-scope's next action with the arguments that
// authorize emptying the scope (authorize); a listed scope may instead set
// allow-empty in its entry.
func emptyScopeNext(flags, listed string) string {
	next := "if unintended, restore the documents; to empty the scope, re-run with " + flags
	if listed != "" {
		next += ", or set allow-empty: true in its scopes: entry"
	}
	return next
}

func (r *runner) observationFailed(ctx context.Context, err error) vocab.Status {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return vocab.StatusInterrupted
	}
	r.log.Error("observation failed", append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}, errAttrs(err)...)...)
	r.ledger.problem(diag.New(diag.ObserveFailed, diag.Subject{}))
	r.ledger.failure("", failureOf(diag.ObserveFailed, err, false))
	return vocab.StatusObservationFailed
}

// failedRegions is the sorted, distinct Regions of failed, joined by ", "
// ("" when none).
func failedRegions(failed []plan.ReplicaWait) string {
	var regions []string
	for _, w := range failed {
		if !slices.Contains(regions, w.Region) {
			regions = append(regions, w.Region)
		}
	}
	slices.Sort(regions)
	return strings.Join(regions, ", ")
}
