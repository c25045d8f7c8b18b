package secretsmanager

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Replication (multi-Region secrets). A primary secret records its
// replicas; each replica is a read-only copy in the same account and
// another Region, with the primary's ARN in that Region (same suffix), its
// name, description, tags, versions and labels, and PrimaryRegion set to
// the primary's Region. Sources: the API reference of
// ReplicateSecretToRegions, RemoveRegionsFromReplication, CreateSecret
// (AddReplicaRegions, ForceOverwriteReplicaSecret) and DeleteSecret ("You
// can't delete a primary secret that is replicated to other Regions ...
// When you delete a replica, it is deleted immediately"), the type
// ReplicationStatusType (Status InSync | Failed | InProgress,
// StatusMessage), cross-checked with moto's tests
// (tests/test_secretsmanager/test_secrets_duplication.py). Error messages
// that the reference does not give come from those tests; docs/emulator.md
// lists them.

// Replication statuses (model ReplicationStatusType / StatusType).
const (
	replInSync     = "InSync"
	replInProgress = "InProgress"
	replFailed     = "Failed"
)

const (
	msgInvalidReplicaRegion = "Invalid replica region."
	msgReplicaReadOnly      = "Operation not permitted on a replica secret. Call must be made in primary secret's region."
)

// replicaState is one replica of a primary, as the primary records it.
type replicaState struct {
	region   string
	kmsKeyID string    // as given ("" for the AWS managed key)
	failed   string    // StatusMessage once failed; "" when not failing
	syncAt   time.Time // InProgress before this emulator time, then InSync (or Failed)
}

// status is the replica's status and message at now.
func (r replicaState) status(now time.Time) (string, string) {
	if now.Before(r.syncAt) {
		return replInProgress, ""
	}
	if r.failed != "" {
		return replFailed, r.failed
	}
	return replInSync, ""
}

func (r replicaState) out(now time.Time) replicationStatus {
	st, msg := r.status(now)
	key := r.kmsKeyID
	if key == "" {
		key = core.SecretsManagerKeyAlias
	}
	return replicationStatus{Region: r.region, KmsKeyID: key, Status: st, StatusMessage: msg}
}

func (s *secret) replicaRegions() []string {
	out := make([]string, 0, len(s.replicas))
	for _, r := range s.replicas {
		out = append(out, r.region)
	}
	return out
}

func (s *secret) replicaIndex(region string) int {
	return slices.IndexFunc(s.replicas, func(r replicaState) bool { return r.region == region })
}

// ReplicaFailure makes replication to one Region fail (Faults.ReplicaFailures):
// every replication to Region started while the fault is set ends Failed
// with StatusMessage Message (after the replication lag), and the replica
// is not created or, when it exists, not updated.
type ReplicaFailure struct {
	Region  string `json:"region"`
	Message string `json:"message,omitempty"`
}

// ValidateReplicaFailures reports the first invalid replica failure, in
// words fit for a 400.
func ValidateReplicaFailures(fs []ReplicaFailure) error {
	seen := map[string]bool{}
	for i, f := range fs {
		if !core.ValidRegion(f.Region) {
			return fmt.Errorf("replica_failures[%d].region %q is not a Region name like us-west-2", i, f.Region)
		}
		if seen[f.Region] {
			return fmt.Errorf("replica_failures[%d].region %q is listed twice", i, f.Region)
		}
		seen[f.Region] = true
	}
	return nil
}

// replicaFailure returns the status message of a failure fault on region,
// or "". e.mu is held.
func (e *Call) replicaFailure(region string) string {
	for _, f := range e.ReplicaFailures() {
		if f.Region == region {
			e.CountFault("replica-failure")
			if f.Message != "" {
				return f.Message
			}
			return "Replication failed: the emulator's replica failure fault for " + region + "."
		}
	}
	return ""
}

func errReplicaReadOnly() *core.Error {
	return core.Errf("InvalidParameterException", msgReplicaReadOnly)
}

// replicaARN is the primary's ARN in region (same account and suffix).
func replicaARN(primaryARN, primaryRegion, region string) string {
	return strings.Replace(primaryARN, ":secretsmanager:"+primaryRegion+":", ":secretsmanager:"+region+":", 1)
}

// replicaCopy builds the replica snapshot of primary n in region.
func replicaCopy(n *secret, primaryRegion string, rs replicaState, created, now time.Time) *secret {
	c := n.clone()
	c.arn = replicaARN(n.arn, primaryRegion, rs.region)
	c.kmsKeyID = rs.kmsKeyID
	c.primaryRegion = primaryRegion
	c.replicas = nil
	c.replica = true
	c.deletedDate, c.deletionDate = time.Time{}, time.Time{}
	c.created = created
	c.lastChanged = now
	return c
}

// startReplica starts replicating n to rs.region: it creates the replica
// there (or records why it failed) and returns the replica state. force
// overwrites a same-name secret in that Region (ForceOverwriteReplicaSecret).
// e.mu is held.
func (e *Call) startReplica(n *secret, rs replicaState, force bool, now time.Time) replicaState {
	rs.failed = ""
	rs.syncAt = now.Add(e.ReplicationLag())
	if msg := e.replicaFailure(rs.region); msg != "" {
		rs.failed = msg
		return rs
	}
	tp := e.SecretsIn(e.Account, rs.region)
	lag := e.ListLag()
	tp.sweep(now, lag)
	if old := tp.byName[n.name]; old != nil {
		if isReplicaOf(old, e.Region) { // our own replica, left stale by a failure
			tp.commit(old, replicaCopy(n, e.Region, rs, old.cur().created, now), now, lag)
			return rs
		}
		if !force {
			rs.failed = fmt.Sprintf("Replication failed: Secret name %s already exists in region %s.", n.name, rs.region)
			return rs
		}
		tp.commit(old, nil, now, lag)
	}
	tp.create(replicaCopy(n, e.Region, rs, now, now), now)
	return rs
}

// commitPrimary commits n as r's new state and, when n has replicas,
// carries the change to every replica that has not failed: each becomes
// InProgress for the replication lag (then InSync), or Failed when a
// replica failure fault is set on its Region. e.mu is held.
func (e *Call) commitPrimary(r *record, n *secret, now time.Time, listLag time.Duration) {
	e.commitPrimaryWith(r, n, now, listLag, e.ReplicationLag(), true)
}

// commitPrimaryWith is commitPrimary with the replication lag replLag and,
// when faults is false, without replica failure faults (conditions).
func (e *Call) commitPrimaryWith(r *record, n *secret, now time.Time, listLag, replLag time.Duration, faults bool) {
	var pushes []replicaState
	for i, rs := range n.replicas {
		if rs.failed != "" && !now.Before(rs.syncAt) {
			continue // failed replicas are not updated
		}
		rs.syncAt = now.Add(replLag)
		msg := ""
		if faults {
			msg = e.replicaFailure(rs.region)
		}
		if msg != "" {
			rs.failed = msg
		} else {
			rs.failed = ""
			pushes = append(pushes, rs)
		}
		n.replicas[i] = rs
	}
	e.Secrets.commit(r, n, now, listLag)
	for _, rs := range pushes {
		tp := e.SecretsIn(e.Account, rs.region)
		tp.sweep(now, listLag)
		tr := tp.byName[n.name]
		if !isReplicaOf(tr, e.Region) {
			continue
		}
		tp.commit(tr, replicaCopy(n, e.Region, rs, tr.cur().created, now), now, listLag)
	}
}

// removeReplica deletes the replica in region at once (no recovery
// window). e.mu is held.
func (e *Call) removeReplica(name, region string, now time.Time) {
	tp := e.SecretsIn(e.Account, region)
	lag := e.ListLag()
	tp.sweep(now, lag)
	if tr := tp.byName[name]; isReplicaOf(tr, e.Region) {
		tp.commit(tr, nil, now, lag)
	}
}

// isReplicaOf reports whether r is a live replica whose primary is in
// primaryRegion (a same-name replica of another primary, put there by
// ForceOverwriteReplicaSecret, is not).
func isReplicaOf(r *record, primaryRegion string) bool {
	return r != nil && r.cur() != nil && r.cur().replica && r.cur().primaryRegion == primaryRegion
}

// parseReplicaRegions validates AddReplicaRegions (model
// AddReplicaRegionListType, min 1; Region pattern ([a-z]+-)+\d+; KmsKeyId as
// for CreateSecret) and refuses the secret's own Region and duplicates. A
// list present but empty (`"AddReplicaRegions":[]`) breaks the minimum, as
// in AWS; an absent one (nil) is CreateSecret's "no replicas".
func parseReplicaRegions(in []replicaRegionIn, own string) ([]replicaState, *core.Error) {
	if in != nil && len(in) == 0 {
		return nil, core.ErrTooShort("addReplicaRegions", 1)
	}
	var out []replicaState
	for _, rr := range in {
		if rr.Region == nil || !core.ValidRegion(*rr.Region) || *rr.Region == own {
			return nil, core.Errf("InvalidParameterException", msgInvalidReplicaRegion)
		}
		if slices.ContainsFunc(out, func(r replicaState) bool { return r.region == *rr.Region }) {
			return nil, core.Errf("InvalidParameterException", msgInvalidReplicaRegion)
		}
		if err := validKMSKeyIDForm(rr.KmsKeyID); err != nil {
			return nil, err
		}
		rs := replicaState{region: *rr.Region}
		if rr.KmsKeyID != nil && *rr.KmsKeyID != core.SecretsManagerKeyAlias {
			rs.kmsKeyID = *rr.KmsKeyID
		}
		out = append(out, rs)
	}
	return out, nil
}

// replicateSecretToRegions: API reference ReplicateSecretToRegions. A
// Region already replicated (and not failed) is left as it is; a failed one
// is replicated again. Answers the status of the Regions asked for.
func (e *Call) replicateSecretToRegions(in *replicateIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if len(in.AddReplicaRegions) == 0 {
		if in.AddReplicaRegions == nil {
			return nil, core.ErrMissing("addReplicaRegions")
		}
		return nil, core.ErrTooShort("addReplicaRegions", 1)
	}
	now, _ := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	add, aerr := parseReplicaRegions(in.AddReplicaRegions, e.Region)
	if aerr != nil {
		return nil, aerr
	}
	n := s.clone()
	out := replicationOut{ARN: s.arn}
	for _, rs := range add {
		i := n.replicaIndex(rs.region)
		if i >= 0 {
			if st, _ := n.replicas[i].status(now); st != replFailed {
				out.ReplicationStatus = append(out.ReplicationStatus, n.replicas[i].out(now))
				continue
			}
			rs = e.startReplica(n, rs, in.ForceOverwriteReplicaSecret, now)
			n.replicas[i] = rs
		} else {
			rs = e.startReplica(n, rs, in.ForceOverwriteReplicaSecret, now)
			n.replicas = append(n.replicas, rs)
		}
		out.ReplicationStatus = append(out.ReplicationStatus, rs.out(now))
	}
	n.primaryRegion = e.Region
	e.Secrets.commit(r, n, now, e.ListLag())
	return out, nil
}

// removeRegionsFromReplication: API reference RemoveRegionsFromReplication.
// The replicas are deleted at once; a Region that is not a replica is
// ignored (moto: removing again is not an error). Answers the remaining
// replicas' status.
func (e *Call) removeRegionsFromReplication(in *removeRegionsIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if len(in.RemoveReplicaRegions) == 0 {
		if in.RemoveReplicaRegions == nil {
			return nil, core.ErrMissing("removeReplicaRegions")
		}
		return nil, core.ErrTooShort("removeReplicaRegions", 1)
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, false)
	if aerr != nil {
		return nil, aerr
	}
	for _, reg := range in.RemoveReplicaRegions {
		if !core.ValidRegion(reg) {
			return nil, core.Errf("InvalidParameterException", msgInvalidReplicaRegion)
		}
	}
	n := s.clone()
	for _, reg := range in.RemoveReplicaRegions {
		if i := n.replicaIndex(reg); i >= 0 {
			e.removeReplica(n.name, reg, now)
			n.replicas = slices.Delete(n.replicas, i, i+1)
		}
	}
	if len(n.replicas) == 0 {
		n.primaryRegion = ""
	}
	e.Secrets.commit(r, n, now, lag)
	out := replicationOut{ARN: s.arn}
	for _, rs := range n.replicas {
		out.ReplicationStatus = append(out.ReplicationStatus, rs.out(now))
	}
	return out, nil
}
