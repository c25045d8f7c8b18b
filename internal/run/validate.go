package run

import (
	"context"
	"errors"
	"log/slog"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Check is what one validate checks (SPEC §15).
type Check struct {
	// Structural is --no-decrypt: the checks that need no key only
	// (desired.Loading.Check).
	Structural bool
	// Overlap are the findings of the scope-overlap rule judged without
	// AWS (factory.OfflineOverlaps): config:scope-overlap errors and
	// warning:overlap-not-judged warnings, in configuration order.
	Overlap diag.Diagnostics
	// Regions are the Regions of the run's scopes (Options.Scopes, same order) as
	// judged without AWS (factory.OfflineRegions: aws-region, else the SDK
	// chain's; "" when unknown), for the engine's checks before any AWS
	// call (engine.BeforeAWS: replica-regions against the scope's own
	// Region). Shorter than the scopes: the rest are unknown.
	Regions []string
}

// Validate runs the request's scopes as validate (SPEC §15): never a
// port, so never an AWS call (no Secrets Manager, no STS; a key service
// only when a document's key must decrypt it and --key-services allows
// it). It resolves the revision once, opens every scope at that commit
// (the structural checks of desired.Open), then decrypts every document
// as plan does (desired.Loading.Decrypt: every rule of SPEC §3, the same
// classes) or, with Check.Structural, applies the checks that need no
// key (desired.Loading.Check). When no document of any scope could be
// decrypted for want of a key (every failure decrypt:no-key), the
// structural checks are run instead, as with --no-decrypt, and the
// warning says why. Every invalid document of every scope is reported at
// once, as Execute reports them.
//
// A scope whose documents all pass ends converged with verification
// not-run and no plan; the run's own diagnostics carry the errors and
// warnings of c.Overlap, warning:not-planned, and warning:checks-skipped
// when the checks that need a key were skipped. An overlap error ends the
// run invalid (exit 3) before anything is read, as plan would.
func Validate(ctx context.Context, src Sources, req Request, c Check) Outcome {
	scopes := req.Options.Scopes
	var warnings diag.Diagnostics
	var errs diag.Diagnostics
	for _, d := range c.Overlap {
		if diag.IsWarning(d.Class) {
			warnings = append(warnings, d)
		} else {
			errs = append(errs, d)
		}
	}
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		names[i] = sc.Name
	}
	logWarnings(req.Log, warnings, names)
	if len(errs) > 0 {
		got := setUpFailed(req.Log, scopes, errs)
		got.Run.Diagnostics = append(got.Run.Diagnostics, warnings...)
		return got
	}
	commit, err := src.Revision(scopes[0].Desired)
	if err != nil {
		got := Stopped(logDesired(req.Log, err))
		got.Run.Diagnostics = append(got.Run.Diagnostics, warnings...)
		return got
	}

	got, loads := validateScopes(ctx, src, req, commit, c.Structural)
	why := ""
	if c.Structural {
		why = "--no-decrypt was given"
	} else if noKeyAnywhere(loads) {
		why = "no key could decrypt any document (every one is decrypt:no-key)"
		got, loads = validateScopes(ctx, src, req, commit, true)
	}
	refuseBeforeAWS(loads, scopes, c.Regions)
	for _, l := range loads {
		if l.err != nil {
			got = rejected(ctx, got, loads, commit, scopes)
			break
		}
	}
	own := diag.Diagnostics{diag.New(diag.WarningNotPlanned, diag.Subject{})}
	if why != "" {
		skipped := diag.New(diag.WarningChecksSkipped, diag.Subject{})
		own = append(own, skipped.WithSummary(skipped.Summary+"; skipped because "+why))
	}
	logWarnings(req.Log, own, nil)
	warnings = append(warnings, own...)
	if got.Run.Status != vocab.StatusInterrupted {
		got.Run.Diagnostics = append(got.Run.Diagnostics, warnings...)
	}
	return got
}

// validateScopes opens every scope at commit and decrypts (or, when
// structural, checks) each opened one in configuration order, with one
// decryption cache for several scopes. Every scope that passes ends
// converged with verification not-run.
//
// Each opened scope is also checked as the engine checks it before its
// first AWS call (engine.BeforeAWS over the scope's outline and regions[i]):
// its refusals come first among the scope's diagnostics, so that validate
// passes nothing plan refuses without AWS (SPEC §15).
func validateScopes(ctx context.Context, src Sources, req Request, commit string, structural bool) (Outcome, []*scopeLoad) {
	scopes := req.Options.Scopes
	got := Outcome{Scopes: make([]ScopeOutcome, len(scopes))}
	loads := make([]*scopeLoad, len(scopes))
	var cache *desired.Cache
	if len(scopes) > 1 && !structural {
		cache = desired.NewCache()
		defer cache.Drop()
	}
	for i, sc := range scopes {
		got.Scopes[i] = ScopeOutcome{Name: sc.Name, Region: shownRegion(sc.AWS.Region)}
		o := sc.Desired
		o.Revision = commit
		loads[i] = &scopeLoad{log: req.Log.With(slog.String(vocab.FieldScope, sc.Name))}
		loads[i].load, loads[i].err = src.Open(ctx, o)
	}
	for _, l := range loads {
		if l.err == nil {
			l.validate(ctx, req.Clock, cache, structural)
		}
	}
	for i := range scopes {
		got.Scopes[i].Result = engine.Result{Status: vocab.StatusConverged, Verification: vocab.VerificationNotRun}
	}
	got.Revision = commit
	return got, loads
}

// refuseBeforeAWS adds to each opened scope's load the refusals the
// engine makes before its first AWS call (engine.BeforeAWS over the
// scope's settings, its outline and regions[i], "" past its end), before
// the load's own diagnostics; a load without a diagnostics error keeps its
// error when it has none of its own to add.
func refuseBeforeAWS(loads []*scopeLoad, scopes []config.Scope, regions []string) {
	for i, l := range loads {
		if l.load == nil {
			continue
		}
		region := ""
		if i < len(regions) {
			region = regions[i]
		}
		sc := scopes[i]
		refused := engine.BeforeAWS(engine.Config{Engine: sc.Engine, ReplicasSetting: sc.SettingSubject(config.ReplicaRegions), AdoptSetting: sc.SettingSubject(config.Adopt)},
			l.load.Arrival().Outline(), region)
		if len(refused) == 0 {
			continue
		}
		var own diag.Diagnostics
		if l.err != nil && !errors.As(l.err, &own) {
			continue // an interruption or an internal failure says more
		}
		l.err = append(refused, own...)
	}
}

// validate is the second step of one scope's load in validate: Decrypt,
// or Check when structural, with progress records meanwhile; "desired
// state loaded" (or "desired state checked") when it passed.
func (l *scopeLoad) validate(ctx context.Context, clock engine.Clock, c *desired.Cache, structural bool) {
	start := clock.Now()
	docs := &desired.Progress{}
	end := reportLoading(clock, docs, l.log)
	msg := "desired state loaded"
	if structural {
		msg = "desired state checked"
		l.err = l.load.Check(ctx, docs)
	} else {
		l.err = l.load.Decrypt(ctx, docs, c)
	}
	end()
	if l.err != nil {
		return
	}
	l.log.Info(msg, slog.String(vocab.FieldPhase, vocab.PhasePlan),
		slog.Int(vocab.FieldCount, len(l.load.Arrival().Outline().Secrets)), slog.Int64(vocab.FieldDurationMS, clock.Now().Sub(start).Milliseconds()))
}

// noKeyAnywhere reports whether every scope was opened and decrypted and
// every document that failed, in every scope, failed with decrypt:no-key
// and none passed: no key this process has opens any document, the
// situation of a contributor without the keys (SPEC §15: "or no key
// available").
func noKeyAnywhere(loads []*scopeLoad) bool {
	seen := false
	for _, l := range loads {
		if l.load == nil {
			return false
		}
		docs := len(l.load.Arrival().Outline().Secrets)
		if docs == 0 && l.err == nil {
			continue // an empty scope has nothing to decrypt
		}
		var ds diag.Diagnostics
		if l.err == nil || !errors.As(l.err, &ds) {
			return false
		}
		noKey := 0
		for _, d := range ds {
			switch d.Class {
			case diag.DecryptNoKey:
				noKey++
			case diag.DesiredMoreInvalid:
			default:
				return false
			}
		}
		// Past the cap only the first MaxReportedDocuments are known.
		if noKey != min(docs, desired.MaxReportedDocuments) {
			return false
		}
		seen = true
	}
	return seen
}

// logWarnings logs each warning once (phase plan, status not set), with
// the scope of names it is about when there is one (nil names: the
// run's own).
func logWarnings(log *slog.Logger, ds diag.Diagnostics, names []string) {
	for _, d := range ds {
		attrs := []any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}
		if name := ScopeOf(d, names); name != "" {
			attrs = append(attrs, slog.String(vocab.FieldScope, name))
		}
		log.Warn(d.Sentence(), append(attrs, d.Attrs()...)...)
	}
}
