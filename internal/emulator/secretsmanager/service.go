package secretsmanager

import (
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// operations maps each served X-Amz-Target operation to its handler.
var operations map[string]core.Handler[*Call]

func init() {
	operations = map[string]core.Handler[*Call]{
		"CreateSecret":                 core.Op((*Call).createSecret),
		"PutSecretValue":               core.Op((*Call).putSecretValue),
		"UpdateSecret":                 core.Op((*Call).updateSecret),
		"DescribeSecret":               core.Op((*Call).describeSecret),
		"GetSecretValue":               core.Op((*Call).getSecretValue),
		"BatchGetSecretValue":          core.Op((*Call).batchGetSecretValue),
		"ListSecrets":                  core.Op((*Call).listSecrets),
		"ListSecretVersionIds":         core.Op((*Call).listSecretVersionIDs),
		"DeleteSecret":                 core.Op((*Call).deleteSecret),
		"RestoreSecret":                core.Op((*Call).restoreSecret),
		"TagResource":                  core.Op((*Call).tagResource),
		"UntagResource":                core.Op((*Call).untagResource),
		"UpdateSecretVersionStage":     core.Op((*Call).updateSecretVersionStage),
		"ReplicateSecretToRegions":     core.Op((*Call).replicateSecretToRegions),
		"RemoveRegionsFromReplication": core.Op((*Call).removeRegionsFromReplication),
		"PutResourcePolicy":            core.Op((*Call).putResourcePolicy),
		"GetResourcePolicy":            core.Op((*Call).getResourcePolicy),
		"DeleteResourcePolicy":         core.Op((*Call).deleteResourcePolicy),
	}
}

// Operations returns the names of the served operations.
func Operations() []string {
	names := make([]string, 0, len(operations))
	for k := range operations {
		names = append(names, k)
	}
	return names
}

// mutating lists the operations that change state (ambiguous faults from
// AmbiguousRate apply only to these).
var mutating = map[string]bool{
	"CreateSecret": true, "PutSecretValue": true, "UpdateSecret": true,
	"DeleteSecret": true, "RestoreSecret": true, "TagResource": true,
	"UntagResource": true, "UpdateSecretVersionStage": true,
	"ReplicateSecretToRegions": true, "RemoveRegionsFromReplication": true,
	"PutResourcePolicy": true, "DeleteResourcePolicy": true,
}

// Quotas are AWS's request quotas per operation family, requests per
// second (reference §5; the table). Operations that share a family
// share one bucket. Rows the reference could not confirm are marked.
var Quotas = map[string]core.Quota{
	"DescribeSecret":           {Family: "DescribeSecret+GetSecretValue", Rate: 10000},
	"GetSecretValue":           {Family: "DescribeSecret+GetSecretValue", Rate: 10000},
	"BatchGetSecretValue":      {Family: "BatchGetSecretValue", Rate: 100},
	"ListSecrets":              {Family: "ListSecrets", Rate: 100},
	"ListSecretVersionIds":     {Family: "ListSecretVersionIds", Rate: 50}, // [unverified]
	"CreateSecret":             {Family: "CreateSecret", Rate: 50},
	"PutSecretValue":           {Family: "PutSecretValue+UpdateSecret+UpdateSecretVersionStage", Rate: 50},
	"UpdateSecret":             {Family: "PutSecretValue+UpdateSecret+UpdateSecretVersionStage", Rate: 50},
	"UpdateSecretVersionStage": {Family: "PutSecretValue+UpdateSecret+UpdateSecretVersionStage", Rate: 50},
	// The quotas page puts the replication operations in the same family.
	"ReplicateSecretToRegions":     {Family: "PutSecretValue+UpdateSecret+UpdateSecretVersionStage", Rate: 50},
	"RemoveRegionsFromReplication": {Family: "PutSecretValue+UpdateSecret+UpdateSecretVersionStage", Rate: 50},
	// Resource-policy operations share one quota (reference §5).
	"PutResourcePolicy":    {Family: "ResourcePolicy", Rate: 50},
	"GetResourcePolicy":    {Family: "ResourcePolicy", Rate: 50},
	"DeleteResourcePolicy": {Family: "ResourcePolicy", Rate: 50},
	"DeleteSecret":         {Family: "DeleteSecret", Rate: 50},
	"RestoreSecret":        {Family: "RestoreSecret", Rate: 50},
	"TagResource":          {Family: "TagResource+UntagResource", Rate: 50},
	"UntagResource":        {Family: "TagResource+UntagResource", Rate: 50},
}

// Target is the X-Amz-Target prefix of Secrets Manager's operations (the
// service model's target prefix), IAMPrefix the prefix of their IAM
// actions.
const (
	Target    = "secretsmanager."
	IAMPrefix = "secretsmanager:"
)

// Handler is the handler of operation op, nil when op is not served.
func Handler(op string) core.Handler[*Call] { return operations[op] }

// Serves reports whether op is a Secrets Manager operation.
func Serves(op string) bool { return operations[op] != nil }

// Mutating reports whether op changes state.
func Mutating(op string) bool { return mutating[op] }

// Host is the server Secrets Manager runs in (core.Host) and what it reads
// of it besides, every method called with the lock held.
type Host interface {
	core.Host
	// ListLag is how far in the past ListSecrets reads (emulator.Faults's
	// ListLagMS); ListScanLimit how many secrets one ListSecrets call
	// examines at most (0: no limit).
	ListLag() time.Duration
	ListScanLimit() int64
	// ReplicationLag keeps a replica InProgress this long after a change;
	// ReplicaFailures are the Regions replication to fails.
	ReplicationLag() time.Duration
	ReplicaFailures() []ReplicaFailure
	// SecretsIn is the Store of (account, region), created empty on first
	// use: replication writes the replicas into their Regions' stores.
	SecretsIn(account, region string) *Store
	// NewID is a UUIDv4-shaped id and ARNSuffix the six characters that
	// end a secret's ARN, both from the emulator's seeded generator.
	NewID() string
	ARNSuffix() string
}

// Call is one request's view of Secrets Manager: the host, the partition
// its credentials and signature chose, and that partition's secrets.
type Call struct {
	Host
	core.Partition
	Secrets *Store
}

// MsgNotFound is Secrets Manager's message of ResourceNotFoundException
// (reference §1).
const MsgNotFound = msgNotFound
