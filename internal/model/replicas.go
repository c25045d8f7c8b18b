package model

import (
	"errors"
	"slices"
	"strings"
)

// Replica is one configured replica Region of a scope's secrets
// (replica-regions, SPEC §12): the Region and the KMS key the replica is
// encrypted with there ("" = the AWS managed key aws/secretsmanager of
// that Region).
type Replica struct {
	Region   string
	KMSKeyID string
}

// Replica statuses as DescribeSecret reports them (AWS API reference,
// ReplicationStatusType.Status).
const (
	ReplicaInSync     = "InSync"
	ReplicaInProgress = "InProgress"
	ReplicaFailed     = "Failed"
)

// ParseReplicaRegions parses replica-regions: comma-separated entries,
// each REGION or REGION=KMS_KEY, spaces around entries ignored, "" = none.
// Rules: every Region is a Region code of an AWS partition (ValidRegion),
// all of one partition (a secret replicates within its partition), none
// listed twice; a KMS key has a form ValidateKMSKeyID accepts and, when it
// is an ARN, names the replica's partition and Region (KMS keys are
// regional: a replica is encrypted with a key of its own Region). The
// result is sorted by Region. The error is the rule broken, never the
// value.
func ParseReplicaRegions(v string) ([]Replica, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []Replica
	partition := ""
	for _, entry := range strings.Split(v, ",") {
		entry = strings.TrimSpace(entry)
		region, key, hasKey := strings.Cut(entry, "=")
		region, key = strings.TrimSpace(region), strings.TrimSpace(key)
		if entry == "" {
			return nil, errors.New("must be comma-separated entries REGION or REGION=KMS_KEY, none empty")
		}
		p := PartitionOf(region)
		if p == "" {
			return nil, errors.New("each entry must start with an AWS Region code such as eu-west-1")
		}
		if partition != "" && p != partition {
			return nil, errors.New("all replica Regions must be in one AWS partition")
		}
		partition = p
		if slices.ContainsFunc(out, func(r Replica) bool { return r.Region == region }) {
			return nil, errors.New("must not list a Region twice")
		}
		if hasKey {
			ref, err := parseKMSRef(key, DefaultKMSAlias)
			if err != nil {
				return nil, errors.New("the KMS key after = must be a key id, key ARN, alias/NAME or alias ARN")
			}
			if ref.where != "" && !strings.HasPrefix(ref.where, p+":"+region+":") {
				return nil, errors.New("a KMS key ARN after = must be in the replica's own Region")
			}
		}
		out = append(out, Replica{Region: region, KMSKeyID: key})
	}
	slices.SortFunc(out, func(a, b Replica) int { return strings.Compare(a.Region, b.Region) })
	return out, nil
}

// CheckReplicaHome checks configured replicas against the scope's own
// Region (the primary's): none may be that Region, and all must be in its
// partition (AWS API reference, ReplicateSecretToRegions: a secret
// replicates to other Regions of its partition). own "" is not checked.
func CheckReplicaHome(own string, replicas []Replica) error {
	if own == "" {
		return nil
	}
	p := PartitionOf(own)
	for _, r := range replicas {
		if r.Region == own {
			return errors.New("must not list the scope's own Region (aws-region)")
		}
		if PartitionOf(r.Region) != p {
			return errors.New("must list Regions of the scope's own partition (aws-region)")
		}
	}
	return nil
}

// ReplicaRegionsOf returns the Regions of replicas, in their order.
func ReplicaRegionsOf(replicas []Replica) []string {
	if len(replicas) == 0 {
		return nil
	}
	out := make([]string, len(replicas))
	for i, r := range replicas {
		out[i] = r.Region
	}
	return out
}

// PartitionOf returns the AWS partition whose Region pattern admits region
// (Partitions, RegionInPartition), "" for none.
func PartitionOf(region string) string {
	for p := range Partitions {
		if RegionInPartition(p, region) {
			return p
		}
	}
	return ""
}
