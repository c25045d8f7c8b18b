package emulator

import (
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/ssm"
)

// StateDump is the whole live state, as served by GET /_emulator/state.
// Secrets appear in creation order; values are included (this is a test
// tool). Secrets already purged (force-deleted or past their recovery
// window) are absent; secrets scheduled for deletion are present with
// DeletedDate set.
type StateDump struct {
	Secrets []SecretDump `json:"secrets"`
	// Parameters are the Parameter Store parameters, per (account, Region)
	// in name order.
	Parameters []ParameterDump `json:"parameters,omitempty"`
}

// ParameterDump is one Parameter Store parameter in a StateDump: its
// latest version (the value in clear) and its tags.
type ParameterDump = ssm.ParameterDump

// Stats are the counters served by GET /_emulator/stats, reset by
// POST /_emulator/reset. Calls counts every API request received per
// operation (SDK retries count as separate calls); Retries counts, of those,
// the requests an SDK sent as a retry of a call it had already sent (its
// Amz-Sdk-Request header says attempt=2 or later: after a transport error,
// a 5xx or a throttle the SDK retries itself; a call the tool re-sends after
// a throttle is a new call, attempt=1); Throttled counts requests
// answered with ThrottlingException (Organizations:
// TooManyRequestsException) by the quota buckets; Faults counts
// injected faults by kind: "latency", "error:<Code>" (random or scripted),
// "ambiguous-after-apply", "ambiguous-before-apply" (KMS key faults count
// as "error:EncryptionFailure", "error:DecryptionFailure" or
// "error:AccessDeniedException"). Connections counts the
// TCP connections the HTTP server accepted (each one a TCP handshake, and a
// TLS handshake against real AWS); it is only counted when the server calls
// Emulator.ConnState (cmd/secretsmanager-emulator and emulatortest do).
// MaxInFlight is the largest number of API requests being served at once
// (injected latency included) since the last reset: a client's concurrency
// as the server saw it.
type Stats struct {
	Calls     map[string]int64 `json:"calls"`
	Retries   map[string]int64 `json:"retries"`
	Throttled map[string]int64 `json:"throttled"`
	Faults    map[string]int64 `json:"faults"`
	// CallsByAccountRegion splits Calls by the (account, Region) that
	// served them, keyed "<account>/<region>" (e.g.
	// "123456789012/us-east-1"); only pairs that served a call appear.
	// Calls refused before routing (unknown operations, refused
	// credentials) and STS calls are not in it.
	CallsByAccountRegion map[string]map[string]int64 `json:"calls_by_account_region,omitempty"`
	Connections          int64                       `json:"connections"`
	MaxInFlight          int64                       `json:"max_in_flight"`
}

// Faults configures fault injection (PUT /_emulator/faults replaces the whole
// configuration; the zero value means no faults). Rates are probabilities in
// [0,1] rolled per request from a generator seeded by Seed.
type Faults struct {
	// Seed seeds every random decision of the emulator (fault rolls, jitter,
	// ARN suffixes, generated ids). Setting faults re-seeds.
	Seed int64 `json:"seed"`
	// LatencyMS is added to every API call; LatencyJitterMS adds a uniform
	// random extra in [0, LatencyJitterMS]. The emulator really sleeps.
	LatencyMS       int64 `json:"latency_ms"`
	LatencyJitterMS int64 `json:"latency_jitter_ms"`
	// ListLagMS makes ListSecrets (and BatchGetSecretValue with Filters, which
	// uses the list to choose secrets) answer from the state as it was this many
	// milliseconds ago by the emulator clock. Other operations see the present.
	// Only changes made while the lag is on are remembered: raising the lag does
	// not reconstruct older history.
	ListLagMS int64 `json:"list_lag_ms"`
	// ListScanLimit makes ListSecrets examine at most this many secrets per
	// call (in the default created-date order), so a filtered page can come
	// back short or empty with a NextToken, as AWS's can (reference §1
	// ListSecrets). 0 means no limit. An addition to the list.
	ListScanLimit int64 `json:"list_scan_limit,omitempty"`
	// ErrorRate is the chance that a call gets InternalServiceError (HTTP 500)
	// without being applied.
	ErrorRate float64 `json:"error_rate"`
	// AmbiguousRate is the chance that a mutating call loses its response: the
	// connection is closed without an HTTP response. AmbiguousKind chooses
	// whether the mutation was applied first: "after-apply", "before-apply", or
	// "mixed"/"" (each fault picks one at random, half and half).
	AmbiguousRate float64 `json:"ambiguous_rate"`
	AmbiguousKind string  `json:"ambiguous_kind,omitempty"`
	// Quotas turns on AWS's request quotas as token buckets per operation
	// family (see docs/emulator.md); QuotaScale multiplies every rate and burst
	// (0 means 1); QuotaScales overrides the scale of single families, keyed
	// by an operation of the family (see Quotas; PUT /_emulator/quotas
	// changes these three alone).
	Quotas      bool               `json:"quotas"`
	QuotaScale  float64            `json:"quota_scale"`
	QuotaScales map[string]float64 `json:"quota_scales,omitempty"`
	// Script lists faults for exact calls: the Nth request of Operation
	// (counting from 1, since these faults were set) gets Fault.
	Script []ScriptedFault `json:"script"`
	// KMSKeyFaults make KMS keys unusable (see KMSKeyFault): a
	// write whose value would be encrypted under such a key fails with
	// EncryptionFailure (or AccessDeniedException), a read of a version no
	// usable key can decrypt fails with DecryptionFailure (or
	// AccessDeniedException). An addition to AWS's own faults.
	KMSKeyFaults []KMSKeyFault `json:"kms_key_faults,omitempty"`
	// ReplicationLagMS keeps a replica InProgress for this long (emulator
	// clock) after it is created and after each change of its primary,
	// then InSync (or Failed under a replica failure). 0: InSync at once.
	ReplicationLagMS int64 `json:"replication_lag_ms,omitempty"`
	// ReplicaFailures make replication to single Regions fail (see
	// ReplicaFailure).
	ReplicaFailures []ReplicaFailure `json:"replica_failures,omitempty"`
	// STSHang lists STS actions (AssumeRole, AssumeRoleWithWebIdentity,
	// GetCallerIdentity) that never answer: the request is read, counted
	// and held until the client gives up (its context ends or it closes
	// the connection), as an STS endpoint behind a black-holed route
	// would. An addition to AWS's own faults.
	STSHang []string `json:"sts_hang,omitempty"`
	// SSMParameterLimit lowers the number of Parameter Store parameters
	// of each tier an account may have in a Region (AWS: 10,000 Standard,
	// 100,000 Advanced; PutParameter answers ParameterLimitExceeded past
	// it). 0 means AWS's limits. An addition to AWS's own faults.
	SSMParameterLimit int `json:"ssm_parameter_limit,omitempty"`
	// SSMDescribeWithoutARN makes DescribeParameters answer every entry
	// without its ARN, which the SSM API reference marks optional
	// (ParameterMetadata, "ARN … Required: No"): a client must work from
	// the name. GetParameter(s) still carry it. An addition to AWS's own
	// faults.
	SSMDescribeWithoutARN bool `json:"ssm_describe_without_arn,omitempty"`
	// Denied lists IAM actions the caller is not allowed, as an identity
	// policy that does not grant them: every request of the matching
	// operation (secretsmanager:CreateSecret is CreateSecret,
	// ssm:PutParameter is PutParameter) is answered AccessDeniedException
	// (HTTP 400) without taking effect, after a scripted fault of the
	// same call and before the quotas. One action per operation: the
	// emulator does not model the actions AWS checks beside an
	// operation's own (TagResource for a CreateSecret with tags). An
	// addition to AWS's own faults.
	Denied []string `json:"denied,omitempty"`
	// OrgCreateAccountLagMS keeps an Organizations CreateAccount request
	// IN_PROGRESS for this long (emulator clock) before its account
	// exists and the request is SUCCEEDED (or FAILED); 0: the next call
	// sees it completed. OrgCloseAccountLagMS likewise keeps a closed
	// account PENDING_CLOSURE before it is SUSPENDED (API reference,
	// CloseAccount).
	OrgCreateAccountLagMS int64 `json:"org_create_account_lag_ms,omitempty"`
	OrgCloseAccountLagMS  int64 `json:"org_close_account_lag_ms,omitempty"`
	// STSRefuseAccounts lists accounts whose roles STS refuses: every
	// AssumeRole and AssumeRoleWithWebIdentity of a role of one of them
	// is answered AccessDenied (HTTP 403), as for a role whose trust
	// policy does not admit the caller. STSSilentAccounts lists accounts
	// whose role assumptions are never answered (held like STSHang's).
	// An account of an organization that is not ACTIVE is refused without
	// being listed. Additions to AWS's own faults.
	STSRefuseAccounts []string `json:"sts_refuse_accounts,omitempty"`
	STSSilentAccounts []string `json:"sts_silent_accounts,omitempty"`
}

// ScriptedFault gives the Nth request of Operation (counted since the faults
// were set, SDK retries included) the fault Fault: "ambiguous-after-apply",
// "ambiguous-before-apply", "hang" (never answered nor applied: held until
// the client gives up), "error:<Code>" or "error:<Code>:<Message>".
type ScriptedFault struct {
	Operation string `json:"operation"`
	Nth       int64  `json:"nth"`
	Fault     string `json:"fault"`
}
