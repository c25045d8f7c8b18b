package model

import (
	"errors"
	"slices"
	"strings"
)

// Target is the AWS service a scope writes its documents to (SPEC §16):
// its value is the target setting's spelling. What differs between
// targets is data, one row per target in the table targets below, read
// through Target's methods the way vocab.Action reads vocab's action
// table; it is pinned by testdata/targets.golden (TestTargetsGolden). No
// package compares a Target with one of the constants but this file and
// the adapters (internal/archtest: "Targets are asked, not compared").
type Target string

const (
	// TargetSecretsManager: each document is one AWS Secrets Manager
	// secret (the default; "" reads as it).
	TargetSecretsManager Target = "secrets-manager"
	// TargetParameterStore: each document is one SecureString parameter of
	// AWS Systems Manager Parameter Store.
	TargetParameterStore Target = "parameter-store"
)

// TargetWords are a target's words in every view (plan text and Markdown,
// show, the Action's job summary, the GitLab note): what the operator
// reads of the service, its resources and what a deletion does.
type TargetWords struct {
	// Service names the service in a sentence: "AWS Secrets Manager
	// matches the commit".
	Service string
	// Resource and Resources name one and several of its resources.
	Resource, Resources string
	// DeleteTitle is the title of the section of deletions ("Schedule
	// deletion", "Delete"); DeleteColumn its column in a Markdown table.
	DeleteTitle, DeleteColumn string
	// DeletePlanned is what the closing line says of the deletions: "%d to
	// schedule for deletion", "%d to delete".
	DeletePlanned string
	// DeleteOperation is the word of one deletion's line ("schedule-delete",
	// the action's wire spelling, or "delete").
	DeleteOperation string
	// Deletion says what a deletion does, in the log field deletion:
	// "scheduled" (a recovery window) or "immediate".
	Deletion string
}

// MixedTargetWords are the words of several targets at once (a run whose
// scopes write to more than one): the default target's, with the deletion
// said of both kinds.
func MixedTargetWords() TargetWords {
	w := targets[0].words
	w.Service = "AWS"
	w.DeleteColumn, w.DeletePlanned = "deletion", "to delete or schedule for deletion"
	return w
}

// Capability is what a target's store may do beyond the core every store
// has (the engine's Port: list, describe, read values, create, put a
// value, tag, update metadata, delete). Each is one optional interface of
// the engine's port that the target's adapter implements exactly when the
// target's row has the capability (engine.CapabilitiesOf; the factory's
// test of every adapter holds it), and a target without it refuses the
// settings that need it (Refuses): so config's refusal and the port agree
// by construction.
type Capability string

const (
	// CapRestore: a deletion can be undone within a recovery window
	// (engine.Restorer); without it a deletion is immediate and
	// irreversible.
	CapRestore Capability = "restore"
	// CapReplicas: the store keeps copies of a resource in other Regions
	// of the account (engine.Replicator; the setting replica-regions,
	// SPEC §12).
	CapReplicas Capability = "replicas"
	// CapLabels: a version's labels move between versions as a
	// compare-and-swap, the way AWS's rotation of the keys it owns moves
	// them (engine.LabelMover; the setting aws-owned, SPEC §13).
	CapLabels Capability = "labels"
	// CapSurvey: the store's listing answers each entry's metadata, so
	// discovery settles names without one describe each (engine.Surveyor).
	CapSurvey Capability = "survey"
)

// capabilities is the table of capabilities, in the order the views and
// Refusals list them: the settings each is needed by (internal/config's
// names), refused for a target without it.
var capabilities = []struct {
	Capability
	settings []string
}{
	{CapRestore, nil},
	{CapReplicas, []string{"replica-regions"}},
	{CapLabels, []string{"aws-owned"}},
	{CapSurvey, nil},
}

// Capabilities lists every capability a store may have, in the table's
// order.
var Capabilities = func() []Capability {
	out := make([]Capability, len(capabilities))
	for i, c := range capabilities {
		out[i] = c.Capability
	}
	return out
}()

// Refusal is a setting a target refuses (config:invalid-value with the
// reason), because the service has no counterpart.
type Refusal struct {
	// Setting is the setting's name (internal/config's declaration).
	Setting string
	// Reason completes "is not available for target T: ".
	Reason string
}

// targetRow is one row of the target table.
type targetRow struct {
	Target
	// service is the AWS service namespace: the service of its ARNs, the
	// prefix of its IAM actions (service:Action) and the key of its pace
	// ceilings (pace.LimitsOf).
	service string
	// arn reports whether resource (an ARN's part after the account:
	// "secret:NAME-AbCdEf", "parameter/NAME") is the resource of the
	// secret name.
	arn func(resource, name string) bool
	// arnResource is the ARN's resource type with its separator, as the
	// Action's regular expression takes it ("secret:", "parameter/").
	arnResource string
	// resourceName maps a secret name to the service's resource name.
	resourceName func(string) string
	// nameRule is the service's own name rule over resourceName's result,
	// beyond the secret-name rule every target applies (nil: none).
	nameRule func(string) error
	// binary: a value may be binary (.sops.bin).
	binary bool
	// tiers are the storage tiers and their value limits in bytes, the
	// default first (none: one limit, maxValue).
	tiers []tier
	// maxValue is the largest value without tiers, in bytes.
	maxValue int
	// maxDescription is the longest description, in characters.
	maxDescription int
	// managedKey is the alias of the AWS managed KMS key the service
	// encrypts with when no key is named, the only key under alias/aws/
	// it can use.
	managedKey string
	// ownBucket: the target's quotas are its own, apart from the other
	// targets' in the same account and Region (its quota bucket is
	// account/Region/target).
	ownBucket bool
	// caps are the capabilities the target's store has; every other
	// capability is in lacks.
	caps []Capability
	// lacks says, of each capability the store lacks, why: the reason a
	// setting that needs it is refused (completing "is not available for
	// target T: "). A row names every capability once, in caps or here
	// (TestEveryRowStatesEveryCapability).
	lacks map[Capability]string
	words TargetWords
}

type tier struct {
	name  string
	bytes int
}

// targets is the one table of targets, the default first. A new target
// is one row here (and its constant above, its adapter, its pace
// ceilings).
var targets = []targetRow{
	{
		// AWS Secrets Manager: ARN arn:PARTITION:secretsmanager:REGION:
		// ACCOUNT:secret:NAME-XXXXXX (the name, "-" and six characters:
		// AWS Secrets Manager User Guide, "Secret ARN"); SecretString and
		// SecretBinary up to 65,536 bytes and a description of 2,048
		// characters (API reference CreateSecret); DeleteSecret with a
		// recovery window, RestoreSecret.
		Target: TargetSecretsManager, service: "secretsmanager",
		arn: func(resource, name string) bool {
			rest, ok := strings.CutPrefix(resource, "secret:"+name+"-")
			return ok && len(rest) == 6
		},
		arnResource:  "secret:",
		resourceName: func(n string) string { return n },
		binary:       true, maxValue: MaxValueBytes, maxDescription: MaxDescriptionChars, managedKey: DefaultKMSAlias,
		// RestoreSecret; ReplicateSecretToRegions; UpdateSecretVersionStage.
		caps:  []Capability{CapRestore, CapReplicas, CapLabels},
		lacks: map[Capability]string{CapSurvey: "every listed secret is described (DescribeSecret)"},
		words: TargetWords{Service: "AWS Secrets Manager", Resource: "secret", Resources: "secrets",
			DeleteTitle: "Schedule deletion", DeleteColumn: "schedule deletion", DeletePlanned: "to schedule for deletion",
			DeleteOperation: "schedule-delete", Deletion: "scheduled"},
	},
	{
		// Parameter Store: ARN arn:PARTITION:ssm:REGION:ACCOUNT:parameter/
		// NAME with the parameter name's leading "/" dropped (IAM User
		// Guide, "Actions, resources, and condition keys for AWS Systems
		// Manager"); text values of the tier's size; a description of
		// 1,024 characters (API reference PutParameter); DeleteParameter
		// is immediate; its own quotas (SPEC §16).
		Target: TargetParameterStore, service: "ssm",
		arn: func(resource, name string) bool {
			return resource == "parameter"+ParameterName(name)
		},
		arnResource:  "parameter/",
		resourceName: ParameterName, nameRule: ValidateParameterName,
		tiers:          []tier{{TierStandard, MaxStandardValueBytes}, {TierAdvanced, MaxAdvancedValueBytes}},
		maxDescription: 1024, ownBucket: true, managedKey: "alias/aws/ssm",
		// DescribeParameters answers a page of entries with what it
		// answers for one name.
		caps: []Capability{CapSurvey},
		lacks: map[Capability]string{
			CapRestore:  "DeleteParameter is immediate",
			CapReplicas: "Parameter Store parameters have no replicas",
			CapLabels:   "AWS owns no key of a parameter (no rotation)",
		},
		words: TargetWords{Service: "Parameter Store", Resource: "parameter", Resources: "parameters",
			DeleteTitle: "Delete", DeleteColumn: "delete", DeletePlanned: "to delete",
			DeleteOperation: "delete", Deletion: "immediate"},
	},
}

// SharedIAMServices are the IAM services every target's runs call beside
// its own: STS for the role a scope assumes, KMS for the key of its values
// (docs/iam-policy.md).
var SharedIAMServices = []string{"sts", "kms"}

// Targets lists the valid values of the target setting, the default first.
var Targets = func() []Target {
	out := make([]Target, len(targets))
	for i, r := range targets {
		out[i] = r.Target
	}
	return out
}()

// ErrTarget is ParseTarget's reason for a word that names no target.
var ErrTarget = errors.New("must be secrets-manager or parameter-store")

// ParseTarget returns the target the setting's word names, or ErrTarget.
func ParseTarget(s string) (Target, error) {
	if t := Target(s); t != "" && t.row() != nil {
		return t, nil
	}
	return "", ErrTarget
}

// row returns t's row: "" is the default target's; nil for an unknown
// spelling.
func (t Target) row() *targetRow {
	if t == "" {
		return &targets[0]
	}
	for i := range targets {
		if targets[i].Target == t {
			return &targets[i]
		}
	}
	return nil
}

// must is t's row, the default's for an unknown spelling (a target that
// reached a consumer was parsed by ParseTarget).
func (t Target) must() *targetRow {
	if r := t.row(); r != nil {
		return r
	}
	return &targets[0]
}

// Known reports whether t is one of Targets or "" (the default).
func (t Target) Known() bool { return t.row() != nil }

// Resolved is t with "" read as the default target.
func (t Target) Resolved() Target { return t.must().Target }

// IsDefault reports whether t is the default target (or ""): the one a
// file written before targets existed meant.
func (t Target) IsDefault() bool { return t.must() == &targets[0] }

// Service is the target's AWS service namespace: its ARNs' service, its
// IAM actions' prefix and the key of its pace ceilings ("secretsmanager",
// "ssm").
func (t Target) Service() string { return t.must().service }

// Words are the target's words for every view.
func (t Target) Words() TargetWords { return t.must().words }

// ResourceName is the service's name of the resource of a secret name
// (Parameter Store: ParameterName).
func (t Target) ResourceName(secretName string) string { return t.must().resourceName(secretName) }

// CheckName applies the service's own name rule to the resource of a
// secret name that passed ValidateName (nil when the service has none
// beyond it); the error never repeats the name.
func (t Target) CheckName(secretName string) error {
	r := t.must()
	if r.nameRule == nil {
		return nil
	}
	return r.nameRule(r.resourceName(secretName))
}

// StoresBinary reports whether a value may be binary (.sops.bin).
func (t Target) StoresBinary() bool { return t.must().binary }

// HasTiers reports whether the value limit depends on a tier
// (parameter-tier).
func (t Target) HasTiers() bool { return len(t.must().tiers) > 0 }

// ValueLimit is the largest value, in bytes, the target stores in one
// write in tier (the target's one limit when it has no tiers; "" is its
// default tier; 0 for a tier it lacks). The loader holds each document to
// it (plaintext:too-large); the planner holds to it the value a write
// makes with the keys owned by AWS merged or generated
// (gate:value-too-large).
func (t Target) ValueLimit(tier string) int {
	r := t.must()
	if len(r.tiers) == 0 {
		return r.maxValue
	}
	if tier == "" {
		return r.tiers[0].bytes
	}
	for _, x := range r.tiers {
		if x.name == tier {
			return x.bytes
		}
	}
	return 0
}

// MaxDescription is the longest description the target stores, in
// characters.
func (t Target) MaxDescription() int { return t.must().maxDescription }

// ManagedKMSAlias is the alias of the AWS managed KMS key t's service
// uses when no key is named (alias/aws/secretsmanager, alias/aws/ssm):
// the one alias under alias/aws/ a kms-key-id of t may name
// (ValidateKMSKeyIDFor).
func (t Target) ManagedKMSAlias() string { return t.must().managedKey }

// DeletionUndoable reports whether a deletion can be undone within a
// recovery window (Secrets Manager's DeleteSecret): the store has
// CapRestore. Otherwise it is immediate and irreversible (Parameter
// Store's DeleteParameter).
func (t Target) DeletionUndoable() bool { return t.Has(CapRestore) }

// Has reports whether the target's store has capability c.
func (t Target) Has(c Capability) bool { return slices.Contains(t.must().caps, c) }

// Capabilities lists the capabilities the target's store has, in the
// order of the package's Capabilities.
func (t Target) Capabilities() []Capability {
	var out []Capability
	for _, c := range Capabilities {
		if t.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// OwnBucket reports whether the target's quotas are apart from the other
// targets' in one account and Region: its quota bucket is
// account/Region/target, never shared with another target's.
func (t Target) OwnBucket() bool { return t.must().ownBucket }

// Refuses returns the reason the target refuses setting, and whether it
// does: the setting needs a capability the target's store lacks.
func (t Target) Refuses(setting string) (string, bool) {
	for _, r := range t.Refusals() {
		if r.Setting == setting {
			return r.Reason, true
		}
	}
	return "", false
}

// Refusals lists the settings the target refuses: those of each
// capability its store lacks, in the order of Capabilities, with the
// row's reason.
func (t Target) Refusals() []Refusal {
	r := t.must()
	var out []Refusal
	for _, c := range capabilities {
		if slices.Contains(r.caps, c.Capability) {
			continue
		}
		for _, s := range c.settings {
			out = append(out, Refusal{Setting: s, Reason: r.lacks[c.Capability]})
		}
	}
	return out
}

// ARNResource is the resource type of the target's ARNs with its
// separator ("secret:", "parameter/").
func (t Target) ARNResource() string { return t.must().arnResource }

// ValidARN reports whether arn is an ARN of the target naming the
// resource of secretName: arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE
// with the target's service and its resource of that name (a partition
// and Region code of lower-case letters, digits and "-", a 12-digit
// account).
func (t Target) ValidARN(arn, secretName string) bool {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != t.Service() || !arnWord(parts[1]) || !arnWord(parts[3]) ||
		len(parts[4]) != 12 || strings.Trim(parts[4], "0123456789") != "" {
		return false
	}
	return t.must().arn(parts[5], secretName)
}

func arnWord(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}

// TargetOfARN returns the target whose ARN form arn has for secretName,
// and whether one has.
func TargetOfARN(arn, secretName string) (Target, bool) {
	for _, r := range targets {
		if r.ValidARN(arn, secretName) {
			return r.Target, true
		}
	}
	return "", false
}

// IAMServices are the prefixes of the IAM actions a run of the target
// calls: its own service's, then SharedIAMServices.
func (t Target) IAMServices() []string {
	return append([]string{t.Service()}, SharedIAMServices...)
}

// ValidIAMAction reports whether action is service:Action with a service
// of t.IAMServices and an Action of 1 to 64 ASCII letters.
func (t Target) ValidIAMAction(action string) bool {
	svc, name, ok := strings.Cut(action, ":")
	if !ok || !slices.Contains(t.IAMServices(), svc) || len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
