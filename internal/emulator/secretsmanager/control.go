package secretsmanager

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Dump is the call's (account, Region)'s live secrets, in creation order
// (secrets whose recovery window ended are purged first). The caller holds
// the lock.
func (e *Call) Dump() []SecretDump {
	e.Secrets.sweep(e.Now(), e.ListLag())
	out := []SecretDump{}
	for _, r := range e.Secrets.order {
		s := r.cur()
		if s == nil {
			continue
		}
		sd := SecretDump{
			Account:         e.Account,
			Region:          e.Region,
			Name:            s.name,
			ARN:             s.arn,
			Description:     s.description,
			KmsKeyID:        s.kmsKeyID,
			Tags:            map[string]string{},
			RotationEnabled: s.rotationEnabled,
			LastRotatedDate: timePtr(s.lastRotated),
			OwningService:   s.owningService,
			ReplicaRegions:  s.replicaRegions(),
			PrimaryRegion:   s.primaryRegion,
			Replica:         s.replica,
			ResourcePolicy:  s.policy,
			Versions:        []VersionDump{},
		}
		if s.pending() {
			t := s.deletedDate
			sd.DeletedDate = &t
		}
		for _, t := range s.tags {
			sd.Tags[t.key] = t.value
		}
		for _, rs := range s.replicas {
			st, msg := rs.status(e.Now())
			sd.ReplicationStatus = append(sd.ReplicationStatus, ReplicaStatusDump{Region: rs.region, KmsKeyID: rs.kmsKeyID, Status: st, StatusMessage: msg})
		}
		for _, v := range s.versions {
			vd := VersionDump{VersionID: v.id, Stages: append([]string{}, s.stages[v.id]...), SecretBinary: slices.Clone(v.bin), CreatedDate: v.created, KmsKeyIDs: keyIDsOut(v)}
			if v.str != nil {
				str := *v.str
				vd.SecretString = &str
			}
			sd.Versions = append(sd.Versions, vd)
		}
		out = append(out, sd)
	}
	return out
}

// CheckConditions reports what is wrong with c before its secret is looked
// up: no name, a replica Region that is not a Region name, a
// current_payload other than both or neither.
func CheckConditions(c Conditions) error {
	if c.Name == "" {
		return errors.New("name is required (a secret name or ARN)")
	}
	for _, reg := range c.ReplicaRegions {
		if !core.ValidRegion(reg) {
			return fmt.Errorf("replica region %q is not a Region name like us-west-2", reg)
		}
	}
	if c.CurrentPayload != nil && *c.CurrentPayload != "both" && *c.CurrentPayload != "neither" {
		return fmt.Errorf("current_payload must be \"both\" or \"neither\"")
	}
	return nil
}

// SetConditions applies c, which CheckConditions accepted, to its secret
// in the call's (account, Region); an error when the secret does not
// exist or c cannot apply to it.
func (e *Call) SetConditions(c Conditions) error {
	now, lag := e.begin()
	defer e.Unlock()
	r := e.Secrets.lookup(c.Name)
	if r == nil || r.cur() == nil {
		return fmt.Errorf("secret %q not found in account %s, Region %s", c.Name, e.Account, e.Region)
	}
	n := r.cur().clone()
	if c.RotationEnabled != nil {
		if *c.RotationEnabled && !n.rotationEnabled {
			n.rotationSince = now
		}
		n.rotationEnabled = *c.RotationEnabled
		n.rotationSet = true
	}
	if c.OwningService != nil {
		n.owningService = *c.OwningService
	}
	if c.ReplicaRegions != nil {
		if n.replica {
			return fmt.Errorf("secret %q is a replica; set conditions on its primary", c.Name)
		}
		if slices.Contains(c.ReplicaRegions, e.Region) {
			return fmt.Errorf("replica_regions: a secret cannot be replicated to its own Region %s", e.Region)
		}
		// Replicas made by conditions are InSync at once (no lag, no
		// failure faults); a name clash in the Region still fails.
		var keep []replicaState
		for _, rs := range n.replicas {
			if slices.Contains(c.ReplicaRegions, rs.region) {
				keep = append(keep, rs)
			} else {
				e.removeReplica(n.name, rs.region, now)
			}
		}
		n.replicas = keep
		for _, reg := range c.ReplicaRegions {
			if n.replicaIndex(reg) >= 0 {
				continue
			}
			rs := replicaState{region: reg}
			tp := e.SecretsIn(e.Account, reg)
			tp.sweep(now, lag)
			if tp.byName[n.name] != nil {
				rs.failed = fmt.Sprintf("Replication failed: Secret name %s already exists in region %s.", n.name, reg)
			} else {
				tp.create(replicaCopy(n, e.Region, rs, now, now), now)
			}
			rs.syncAt = now
			n.replicas = append(n.replicas, rs)
		}
		n.primaryRegion = ""
		if len(n.replicas) > 0 {
			n.primaryRegion = e.Region
		}
	}
	if c.PendingVersion != nil {
		if *c.PendingVersion {
			id := e.NewID()
			var str *string
			var bin []byte
			if cur := n.holder("AWSCURRENT"); cur != "" {
				v := n.version(cur)
				str, bin = v.str, v.bin
			} else {
				p := "pending"
				str = &p
			}
			n.versions = append(n.versions, newVersion(id, str, bin, now, e.storedKeyID(n)))
			n.removeLabel("AWSPENDING")
			n.addLabel(id, "AWSPENDING")
		} else {
			n.removeLabel("AWSPENDING")
		}
	}
	if c.ExtraCurrentStage != nil {
		var holders []string
		for _, v := range n.versions {
			if slices.Contains(n.stages[v.id], "AWSCURRENT") {
				holders = append(holders, v.id)
			}
		}
		if *c.ExtraCurrentStage {
			target := ""
			for i := len(n.versions) - 1; i >= 0; i-- {
				if id := n.versions[i].id; !slices.Contains(holders, id) {
					target = id
					break
				}
			}
			if target == "" {
				target = e.NewID()
				p := "extra-current"
				n.versions = append(n.versions, newVersion(target, &p, nil, now, e.storedKeyID(n)))
			}
			n.addLabel(target, "AWSCURRENT")
			if len(holders) == 0 { // needs two holders
				other := e.NewID()
				p := "extra-current"
				n.versions = append(n.versions, newVersion(other, &p, nil, now, e.storedKeyID(n)))
				n.addLabel(other, "AWSCURRENT")
			}
		} else if len(holders) > 1 {
			keep := holders[len(holders)-1]
			n.removeLabel("AWSCURRENT")
			n.addLabel(keep, "AWSCURRENT")
		}
	}
	if c.CurrentPayload != nil {
		id := e.NewID()
		v := &version{id: id, created: now, keys: []string{e.storedKeyID(n)}}
		if *c.CurrentPayload == "both" {
			str := "string-part"
			v.str, v.bin = &str, []byte("binary-part")
		}
		n.versions = append(n.versions, v)
		n.moveCurrent(id)
	}
	n.lastChanged = now
	e.commitPrimaryWith(r, n, now, lag, 0, false)
	return nil
}
