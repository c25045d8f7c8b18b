package engine

import (
	"context"

	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// sighting is one direct observation of one name together with its
// classification, which is made once (plan.Classify in observeOne) and
// passed along: the apply precondition, the re-observation after an
// ambiguous or refused write and the follow-up after a restore all judge the
// same Decision.
type sighting struct {
	name string
	obs  plan.ObservedSecret
	d    plan.Decision
}

// fingerprint is what the sighting shows, in the form the plan recorded at
// planning (plan.Operation.Fingerprint).
func (s sighting) fingerprint() plan.Fingerprint { return plan.FingerprintOf(s.name, s.obs, s.d) }

// observeOne directly observes and classifies one name (the apply
// precondition, the re-observation after an ambiguous or refused write, the
// wait for a restore to show), reading its value when the planner needs it,
// exactly as observe would. It is called in one place, the write driver's
// loop (drive, write.go; TestDriverIsTheOneDirectObservation).
func (r *runner) observeOne(ctx context.Context, name string) (sighting, error) {
	o, err := r.describeOne(ctx, name)
	if err != nil {
		return sighting{}, err
	}
	want := r.byName[name]
	return sighting{name: name, obs: o, d: plan.Classify(r.policy.Rules, want, o)}, nil
}

func (r *runner) describeOne(ctx context.Context, name string) (plan.ObservedSecret, error) {
	id := r.ledger.arn(name)
	if id == "" {
		id = name
	}
	o, err := r.port.Describe(ctx, id)
	if err != nil {
		return o, firstErr(ctx, err)
	}
	o = sameName(name, o)
	if !o.Exists && id != name {
		// The ARN we knew is gone; the name may now be a new secret.
		if o, err = r.port.Describe(ctx, name); err != nil {
			return o, firstErr(ctx, err)
		}
		o = sameName(name, o)
	}
	if o, err = r.withClashes(ctx, name, o); err != nil {
		return o, firstErr(ctx, err)
	}
	r.ledger.learnARN(name, o.ARN)
	if plan.NeedsValue(r.policy.Rules, r.byName[name], o) {
		vs, err := r.port.GetCurrentValues(ctx, []ValueRequest{{ID: o.ARN, Name: name, CurrentVersionID: o.CurrentVersionIDs()[0]}})
		if err != nil {
			return o, firstErr(ctx, err)
		}
		if len(vs) == 1 {
			o.Current = &vs[0]
		}
	}
	return o, nil
}

// withClashes looks, in every Region the plan would add a replica of name
// in (plan.ReplicaTargets), for a secret of that name, and records the
// Regions where one exists that is not a replica of this scope's Region in
// obs.Clashes (conflict replica-clash, SPEC §12), through the port's
// Replicator (errLacking without one). Nothing is read when replicas are
// not managed or none is to be added.
func (r *runner) withClashes(ctx context.Context, name string, obs plan.ObservedSecret) (plan.ObservedSecret, error) {
	obs.Clashes = nil
	regions := plan.ReplicaTargets(r.policy.Rules, r.byName[name], obs)
	if len(regions) > 0 && r.caps.replicator == nil {
		return obs, errLacking
	}
	for _, region := range regions {
		there, err := r.caps.replicator.DescribeIn(ctx, region, name)
		if err != nil {
			return obs, err
		}
		// A replica there whose primary is in this scope's Region is this
		// name's own replica (names are unique in a Region): the primary
		// exists even if this observation missed it, and the create or
		// replication that follows meets it and is judged then. Anything
		// else of that name is a clash.
		if there.Exists && there.Name == name && there.PrimaryRegion != r.policy.Region {
			obs.Clashes = append(obs.Clashes, region)
		}
	}
	return obs, nil
}

// firstErr prefers the run's cancellation over whatever a call reported.
func firstErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
