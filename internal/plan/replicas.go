package plan

import (
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// ReplicaChange is what an operation changes of a secret's replicas
// (replica-regions, SPEC §12): Add are the configured replicas it creates
// (CreateSecret AddReplicaRegions for a create, ReplicateSecretToRegions
// otherwise), Remove the Regions whose replicas it removes
// (RemoveRegionsFromReplication: immediate, cannot be undone, so each one
// counts as a deletion). Both sorted by Region; zero = no change.
type ReplicaChange struct {
	Add    []model.Replica
	Remove []string
}

// Any reports whether the change adds or removes a replica.
func (c ReplicaChange) Any() bool { return len(c.Add) > 0 || len(c.Remove) > 0 }

// key is the change as one comparable string (Fingerprint.Replicas).
func (c ReplicaChange) key() string {
	if !c.Any() {
		return ""
	}
	var b strings.Builder
	for _, r := range c.Add {
		b.WriteString("+" + r.Region + "=" + r.KMSKeyID + ";")
	}
	for _, r := range c.Remove {
		b.WriteString("-" + r + ";")
	}
	return b.String()
}

// managesReplicas reports whether replica-regions is set: without it a
// replica is conflict replication (SPEC §4.1, §12).
func (r Rules) managesReplicas() bool { return len(r.Replicas) > 0 }

// unlistedReplicas returns the Regions of obs's replicas that
// replica-regions does not list (all of them when replicas are not
// managed), in the observation's order.
func (r Rules) unlistedReplicas(obs ObservedSecret) []string {
	var out []string
	for _, region := range obs.ReplicaRegions {
		if !slices.ContainsFunc(r.Replicas, func(c model.Replica) bool { return c.Region == region }) {
			out = append(out, region)
		}
	}
	return out
}

// replicaOfElsewhere reports whether obs is a replica of a secret whose
// primary is in another Region than the scope's (SPEC §12: in a
// replica's Region it is never a candidate, conflict or orphan).
func (r Rules) replicaOfElsewhere(obs ObservedSecret) bool {
	return r.Region != "" && obs.PrimaryRegion != "" && obs.PrimaryRegion != r.Region
}

// ReplicaOfElsewhere is replicaOfElsewhere for a discovery entry: its
// PrimaryRegion as the list reported it, against the scope's Region.
func ReplicaOfElsewhere(scopeRegion, primaryRegion string) bool {
	return Rules{Region: scopeRegion}.replicaOfElsewhere(ObservedSecret{PrimaryRegion: primaryRegion})
}

// DiffReplicas compares the configured replicas with an observed primary:
// configured Regions without a replica are added, replicas in Regions no
// longer configured are removed. A replica's status and key are not
// compared (a failed replica is verification's to report; a changed key
// is not applied to an existing replica: docs/reconciliation.md).
func DiffReplicas(want []model.Replica, obs ObservedSecret) ReplicaChange {
	var c ReplicaChange
	for _, r := range want {
		if !slices.Contains(obs.ReplicaRegions, r.Region) {
			c.Add = append(c.Add, r)
		}
	}
	for _, region := range obs.ReplicaRegions {
		if !slices.ContainsFunc(want, func(r model.Replica) bool { return r.Region == region }) {
			c.Remove = append(c.Remove, region)
		}
	}
	return c
}

// ReplicaTargets returns the Regions where the observer must look for a
// secret of the name before the plan may replicate there (conflict
// replica-clash): the Regions a create or an update would add a replica
// in. nil when replicas are not managed or nothing would be added.
func ReplicaTargets(rules Rules, want *model.Secret, obs ObservedSecret) []string {
	if !rules.managesReplicas() || want == nil {
		return nil
	}
	if !obs.Exists {
		return model.ReplicaRegionsOf(rules.Replicas)
	}
	if (!obs.Owned(rules.ScopeDigest) && !rules.Adopt[want.Name]) || obs.Deleted || rules.replicaOfElsewhere(obs) {
		return nil // an adoption replicates like an owned secret
	}
	return model.ReplicaRegionsOf(DiffReplicas(rules.Replicas, obs).Add)
}

// ReplicaWait is a configured replica of a desired secret that is not
// InSync yet: verification waits for it (InProgress) or fails on it
// (Failed) (SPEC §12).
type ReplicaWait struct {
	Name   string
	Region string
	// Status is model.ReplicaInProgress or model.ReplicaFailed (a replica
	// the observation lists without a status counts as InProgress).
	Status string
}

// replicaWaits lists the configured replicas of one owned, active,
// desired primary that are not InSync.
func replicaWaits(rules Rules, name string, obs ObservedSecret) []ReplicaWait {
	var out []ReplicaWait
	for _, r := range rules.Replicas {
		if !slices.Contains(obs.ReplicaRegions, r.Region) {
			continue
		}
		switch st := obs.replicaStatus(r.Region); st {
		case model.ReplicaInSync:
		case model.ReplicaFailed:
			out = append(out, ReplicaWait{Name: name, Region: r.Region, Status: model.ReplicaFailed})
		default:
			out = append(out, ReplicaWait{Name: name, Region: r.Region, Status: model.ReplicaInProgress})
		}
	}
	return out
}

// withReplicas adds the replica change to a decision on a managed scope
// (after the value and metadata were judged): a create carries every
// configured replica; an unchanged or updated active secret carries
// DiffReplicas (an otherwise unchanged one becomes an update with reason
// replicas); a schedule-delete removes every replica first (AWS refuses
// to delete a primary that has replicas). Adding a replica in a Region
// where a same-name secret exists is conflict replica-clash.
func withReplicas(rules Rules, want *model.Secret, obs ObservedSecret, d Decision) Decision {
	if !rules.managesReplicas() || rules.replicaOfElsewhere(obs) {
		return d
	}
	switch d.Action {
	case vocab.ActionScheduleDelete:
		d.Replicas.Remove = slices.Clone(obs.ReplicaRegions)
		return d
	case vocab.ActionCreate:
		d.Replicas.Add = slices.Clone(rules.Replicas)
	case vocab.ActionUnchanged, vocab.ActionUpdate, vocab.ActionAdopt:
		if want == nil || !obs.Exists || obs.Deleted {
			return d
		}
		d.Replicas = DiffReplicas(rules.Replicas, obs)
	default:
		return d
	}
	for _, r := range d.Replicas.Add {
		if slices.Contains(obs.Clashes, r.Region) {
			c, _ := conflict(vocab.ConflictReplicaClash)
			return c
		}
	}
	if d.Action == vocab.ActionUnchanged && d.Replicas.Any() {
		d.Action, d.Reason = vocab.ActionUpdate, vocab.ReasonReplicas
	}
	return d
}
