package ssm

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Limits of Parameter Store (API reference PutParameter; user guide
// "Managing parameter tiers").
const (
	ssmStandardValueMax = 4096  // bytes of a Standard parameter's value (4 KB)
	ssmAdvancedValueMax = 8192  // bytes of an Advanced parameter's value (8 KB)
	ssmMaxNameLen       = 2048  // the model's PSParameterName constraint
	ssmMaxUserNameLen   = 1011  // a name the user creates, the ARN's leading part included
	ssmMaxDepth         = 15    // levels of a hierarchy
	ssmMaxVersions      = 100   // versions kept per parameter
	ssmMaxLabels        = 10    // labels per version
	ssmMaxTags          = 50    // tags per resource [unverified: the tagging guide's 50]
	ssmMaxDescription   = 1024  // characters of a description
	ssmMaxNames         = 10    // names of one GetParameters or DeleteParameters
	ssmDescribeMax      = 50    // DescribeParameters MaxResults
	ssmByPathMax        = 10    // GetParametersByPath MaxResults
	ssmHistoryMax       = 50    // GetParameterHistory MaxResults
	ssmDefaultPage      = 10    // MaxResults when none is given [unverified]
	ssmStandardCount    = 10000 // Standard parameters per account and Region
	ssmAdvancedCount    = 100000
)

// DefaultKMSAlias is the alias of the AWS managed key Parameter Store
// encrypts a SecureString with when PutParameter names no KeyId.
const DefaultKMSAlias = "alias/aws/ssm"

// ssmDefaultKeyID is the key id of the emulator's aws/ssm key. It is not in
// the KMS registry (GET /_emulator/kms lists the Secrets Manager key and the
// customer keys), so a KMSKeyFault cannot name it.
const ssmDefaultKeyID = "55a0e75a-0000-4000-8000-000000000002"

// Parameter types and tiers (the model's ParameterType and ParameterTier).
const (
	ssmString       = "String"
	ssmStringList   = "StringList"
	ssmSecureString = "SecureString"
	tierStandard    = "Standard"
	tierAdvanced    = "Advanced"
	tierIntelligent = "Intelligent-Tiering"
)

// paramVersion is one immutable version of a parameter.
type paramVersion struct {
	version     int64
	typ         string
	value       string
	keyID       string // KeyId as stored (SecureString only): alias/aws/ssm by default
	description string
	tier        string
	policies    string // JSON text as given ("" when none)
	dataType    string
	pattern     string
	modified    time.Time
	user        string
	labels      []string
}

// parameter is a live parameter: its versions (oldest first, at most
// ssmMaxVersions) and its tags. Versions are never edited once written but
// for their labels.
type parameter struct {
	name     string // as created (a single-level name may or may not start with /)
	versions []*paramVersion
	tags     map[string]string
	tagOrder []string
}

func (p *parameter) latest() *paramVersion { return p.versions[len(p.versions)-1] }

func (p *parameter) version(n int64) *paramVersion {
	for _, v := range p.versions {
		if v.version == n {
			return v
		}
	}
	return nil
}

func (p *parameter) labelled(l string) *paramVersion {
	for _, v := range p.versions {
		if slices.Contains(v.labels, l) {
			return v
		}
	}
	return nil
}

// Store is one partition's parameters by key (ssmKey).
type Store struct {
	byKey map[string]*parameter
}

// NewStore returns an empty Store.
func NewStore() *Store { return &Store{byKey: map[string]*parameter{}} }

// ssmKey is the identity of a name: one leading "/" does not count, so
// "x" and "/x" name one parameter (moto's test_parameter_lifecycle_with_
// leading_slash, marked as verified against AWS).
func ssmKey(name string) string { return strings.TrimPrefix(name, "/") }

// sortedKeys returns the store's keys in name order.
func (s *Store) sortedKeys() []string {
	keys := make([]string, 0, len(s.byKey))
	for k := range s.byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (s *Store) count(tier string) int {
	n := 0
	for _, p := range s.byKey {
		if p.latest().tier == tier {
			n++
		}
	}
	return n
}

func (e *Call) paramARN(p *parameter) string {
	return fmt.Sprintf("arn:aws:ssm:%s:%s:parameter/%s", e.Region, e.Account, ssmKey(p.name))
}

// ssmUser is the LastModifiedUser of a write: the partition's account as an
// IAM user (the emulator does not carry the caller's principal this far).
func (e *Call) ssmUser() string { return "arn:aws:iam::" + e.Account + ":user/emulator" }

// Name rules (API reference PutParameter, "Naming Constraints"): letters,
// digits, _ . - and / for hierarchies; no "aws" or "ssm" prefix (case
// insensitive); at most 15 levels; 1011 characters with the ARN's leading
// part ("arn:aws:ssm:REGION:ACCOUNT:parameter/"). Messages are moto's where
// it has one, else ours [unverified].
var ssmNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.\-/]+$`)

const (
	msgSSMPrefix     = `Parameter name: can't be prefixed with "aws" or "ssm" (case-insensitive).`
	msgSSMPathPrefix = `Parameter name: can't be prefixed with "ssm" (case-insensitive). If formed as a path, it can consist of sub-paths divided by slash symbol; each sub-path can be formed as a mix of letters, numbers and the following 3 symbols .-_`
	msgSSMExists     = "The parameter already exists. To overwrite this value, set the overwrite option in the request to true."
)

// ssmName checks a parameter name for a write and returns it with the
// surrounding spaces the service removes.
func (e *Call) ssmName(raw *string) (string, *core.Error) {
	if raw == nil {
		return "", core.ErrMissing("name")
	}
	name := strings.TrimSpace(*raw)
	switch {
	case name == "":
		return "", core.ErrTooShort("name", 1)
	case utf8.RuneCountInString(name) > ssmMaxNameLen:
		return "", core.ErrTooLong("name", ssmMaxNameLen)
	case strings.HasPrefix(name, "arn:"):
		return "", core.Errf("ValidationException", "Parameter name: can't be an ARN; use the parameter name itself.") // [unverified]
	}
	first, _, _ := strings.Cut(ssmKey(name), "/")
	lower := strings.ToLower(first)
	if strings.HasPrefix(lower, "aws") || strings.HasPrefix(lower, "ssm") {
		if strings.HasPrefix(name, "/") && strings.Contains(name[1:], "/") {
			if strings.HasPrefix(lower, "aws") {
				return "", core.Errf("AccessDeniedException", "No access to reserved parameter name: %s.", name)
			}
			return "", core.Errf("ValidationException", msgSSMPathPrefix)
		}
		return "", core.Errf("ValidationException", msgSSMPrefix)
	}
	if !ssmNameRE.MatchString(name) || strings.Contains(name, "//") || strings.HasSuffix(name, "/") {
		return "", core.Errf("ValidationException", "Parameter name: %s is not valid. It can consist of letters, numbers and the symbols .-_, with / between the levels of a hierarchy.", name) // [unverified]
	}
	if strings.Contains(ssmKey(name), "/") && !strings.HasPrefix(name, "/") {
		return "", core.Errf("ValidationException", "Parameter name must be a fully qualified name: a name in a hierarchy starts with /.") // [unverified]
	}
	if strings.Count(name, "/") > ssmMaxDepth {
		return "", core.Errf("HierarchyLevelLimitExceededException", "A hierarchy can have a maximum of 15 levels.")
	}
	if n := len("arn:aws:ssm:"+e.Region+":"+e.Account+":parameter/") + len(ssmKey(name)); n > ssmMaxUserNameLen {
		return "", core.Errf("ValidationException", "Parameter name: the name with the ARN's leading part is %d characters; the limit is %d.", n, ssmMaxUserNameLen) // [unverified]
	}
	return name, nil
}

// ssmLookupName splits a read's name into the parameter name and its
// selector (":version" or ":label"), as GetParameter and GetParameters
// accept ("name:3", "name:prod").
func ssmLookupName(s string) (name, selector string) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, ':'); i > 0 && !strings.HasPrefix(s, "arn:") {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// resolveSSMKey resolves a KeyId for a SecureString: "" and alias/aws/ssm (or
// its ARN) are the AWS managed key; anything else must be a key of the KMS
// registry. The caller holds the lock.
func (e *Call) resolveSSMKey(id string) (string, *core.Error) {
	if id == "" || id == DefaultKMSAlias || id == e.kmsAliasARN(DefaultKMSAlias) {
		return ssmDefaultKeyID, nil
	}
	kid, aerr := e.resolveKMS(id)
	if aerr != nil {
		return "", core.Errf("InvalidKeyId", "The KMS key %s is not valid for this account and Region.", id) // [unverified wording]
	}
	if st := e.kmsState(kid); st != "" {
		e.CountFault("error:InvalidKeyId")
		return "", core.Errf("InvalidKeyId", "The KMS key %s is %s.", id, st) // [unverified wording]
	}
	return kid, nil
}

// stand-in for a SecureString's ciphertext: never the value.
func ssmCiphertext(p *parameter, v *paramVersion) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "emulator-ciphertext:%s:%d:%s", ssmKey(p.name), v.version, v.keyID))
}

// Wire shapes (the SSM service model). Output members without a value are
// left out.

type putParameterIn struct {
	Name           *string
	Description    *string
	Value          *string
	Type           *string
	KeyID          *string
	Overwrite      *bool
	AllowedPattern *string
	Tags           []core.Tag
	Tier           *string
	Policies       *string
	DataType       *string
}

type putParameterOut struct {
	Version int64  `json:"Version"`
	Tier    string `json:"Tier"`
}

type getParameterIn struct {
	Name           *string
	WithDecryption *bool
}

type getParametersIn struct {
	Names          []string
	WithDecryption *bool
}

type parameterOut struct {
	Name             string      `json:"Name"`
	Type             string      `json:"Type"`
	Value            string      `json:"Value"`
	Version          int64       `json:"Version"`
	Selector         string      `json:"Selector,omitempty"`
	LastModifiedDate *core.Epoch `json:"LastModifiedDate,omitempty"`
	ARN              string      `json:"ARN"`
	DataType         string      `json:"DataType,omitempty"`
}

type getParameterOut struct {
	Parameter parameterOut `json:"Parameter"`
}

type getParametersOut struct {
	Parameters        []parameterOut `json:"Parameters"`
	InvalidParameters []string       `json:"InvalidParameters"`
}

type paramFilterIn struct {
	Key    *string
	Option *string
	Values []string
}

type describeParametersIn struct {
	Filters          []paramFilterIn
	ParameterFilters []paramFilterIn
	MaxResults       *int64
	NextToken        *string
	Shared           *bool
}

type policyOutSSM struct {
	PolicyText   string `json:"PolicyText"`
	PolicyType   string `json:"PolicyType"`
	PolicyStatus string `json:"PolicyStatus"`
}

type parameterMetaOut struct {
	Name             string         `json:"Name"`
	ARN              string         `json:"ARN,omitempty"`
	Type             string         `json:"Type"`
	KeyID            string         `json:"KeyId,omitempty"`
	LastModifiedDate *core.Epoch    `json:"LastModifiedDate,omitempty"`
	LastModifiedUser string         `json:"LastModifiedUser,omitempty"`
	Description      string         `json:"Description,omitempty"`
	AllowedPattern   string         `json:"AllowedPattern,omitempty"`
	Version          int64          `json:"Version"`
	Tier             string         `json:"Tier"`
	Policies         []policyOutSSM `json:"Policies"`
	DataType         string         `json:"DataType,omitempty"`
}

type describeParametersOut struct {
	Parameters []parameterMetaOut `json:"Parameters"`
	NextToken  string             `json:"NextToken,omitempty"`
}

type getByPathIn struct {
	Path             *string
	Recursive        *bool
	ParameterFilters []paramFilterIn
	WithDecryption   *bool
	MaxResults       *int64
	NextToken        *string
}

type getByPathOut struct {
	Parameters []parameterOut `json:"Parameters"`
	NextToken  string         `json:"NextToken,omitempty"`
}

type deleteParameterIn struct {
	Name *string
}

type deleteParametersIn struct {
	Names []string
}

type deleteParametersOut struct {
	DeletedParameters []string `json:"DeletedParameters"`
	InvalidParameters []string `json:"InvalidParameters"`
}

type ssmResourceIn struct {
	ResourceType *string
	ResourceID   *string
	Tags         []core.Tag
	TagKeys      []string
}

type listTagsOut struct {
	TagList []core.TagOut `json:"TagList"`
}

type labelIn struct {
	Name             *string
	ParameterVersion *int64
	Labels           []string
}

type labelOut struct {
	InvalidLabels    []string `json:"InvalidLabels"`
	ParameterVersion int64    `json:"ParameterVersion"`
}

type historyIn struct {
	Name           *string
	WithDecryption *bool
	MaxResults     *int64
	NextToken      *string
}

type historyEntryOut struct {
	Name             string         `json:"Name"`
	Type             string         `json:"Type"`
	KeyID            string         `json:"KeyId,omitempty"`
	LastModifiedDate *core.Epoch    `json:"LastModifiedDate,omitempty"`
	LastModifiedUser string         `json:"LastModifiedUser,omitempty"`
	Description      string         `json:"Description,omitempty"`
	Value            string         `json:"Value"`
	AllowedPattern   string         `json:"AllowedPattern,omitempty"`
	Version          int64          `json:"Version"`
	Labels           []string       `json:"Labels"`
	Tier             string         `json:"Tier"`
	Policies         []policyOutSSM `json:"Policies"`
	DataType         string         `json:"DataType,omitempty"`
}

type historyOut struct {
	Parameters []historyEntryOut `json:"Parameters"`
	NextToken  string            `json:"NextToken,omitempty"`
}

// operations maps each served "AmazonSSM." operation to its handler.
var operations = map[string]core.Handler[*Call]{
	"PutParameter":           core.Op((*Call).putParameter),
	"GetParameter":           core.Op((*Call).getParameter),
	"GetParameters":          core.Op((*Call).getParameters),
	"GetParametersByPath":    core.Op((*Call).getParametersByPath),
	"DescribeParameters":     core.Op((*Call).describeParameters),
	"DeleteParameter":        core.Op((*Call).deleteParameter),
	"DeleteParameters":       core.Op((*Call).deleteParameters),
	"AddTagsToResource":      core.Op((*Call).addTagsToResource),
	"RemoveTagsFromResource": core.Op((*Call).removeTagsFromResource),
	"ListTagsForResource":    core.Op((*Call).listTagsForResource),
	"LabelParameterVersion":  core.Op((*Call).labelParameterVersion),
	"GetParameterHistory":    core.Op((*Call).getParameterHistory),
}

// mutating are the operations that change state (the emulator's ambiguous
// faults apply only to these).
var mutating = map[string]bool{
	"PutParameter": true, "DeleteParameter": true, "DeleteParameters": true,
	"AddTagsToResource": true, "RemoveTagsFromResource": true, "LabelParameterVersion": true,
}

// Target is the X-Amz-Target prefix of Parameter Store's operations (the
// SSM service model's target prefix), IAMPrefix the prefix of their IAM
// actions.
const (
	Target    = "AmazonSSM."
	IAMPrefix = "ssm:"
)

// Handler is the handler of operation op, nil when op is not served.
func Handler(op string) core.Handler[*Call] { return operations[op] }

// Operations returns the names of the served operations, sorted.
func Operations() []string {
	names := make([]string, 0, len(operations))
	for k := range operations {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Serves reports whether op is a Parameter Store operation.
func Serves(op string) bool { return operations[op] != nil }

// Mutating reports whether op changes state.
func Mutating(op string) bool { return mutating[op] }

// Quotas are Parameter Store's request quotas by operation (docs/emulator.md,
// "Parameter Store"). The default throughput of GetParameter, GetParameters
// and GetParametersByPath is one shared quota of 40 per second (user guide
// "Changing Parameter Store throughput" and the Systems Manager quotas
// page); PutParameter's default throughput is 3 per second (quotas page).
// The others are not on the quotas page: the emulator's choice
// [unverified].
var Quotas = map[string]core.Quota{
	"GetParameter":           {Family: "ssm:GetParameter+GetParameters+GetParametersByPath", Rate: 40},
	"GetParameters":          {Family: "ssm:GetParameter+GetParameters+GetParametersByPath", Rate: 40},
	"GetParametersByPath":    {Family: "ssm:GetParameter+GetParameters+GetParametersByPath", Rate: 40},
	"PutParameter":           {Family: "ssm:PutParameter", Rate: 3},
	"DescribeParameters":     {Family: "ssm:DescribeParameters", Rate: 10},
	"GetParameterHistory":    {Family: "ssm:GetParameterHistory", Rate: 10},
	"DeleteParameter":        {Family: "ssm:DeleteParameter+DeleteParameters", Rate: 10},
	"DeleteParameters":       {Family: "ssm:DeleteParameter+DeleteParameters", Rate: 10},
	"AddTagsToResource":      {Family: "ssm:AddTagsToResource+RemoveTagsFromResource+ListTagsForResource", Rate: 10},
	"RemoveTagsFromResource": {Family: "ssm:AddTagsToResource+RemoveTagsFromResource+ListTagsForResource", Rate: 10},
	"ListTagsForResource":    {Family: "ssm:AddTagsToResource+RemoveTagsFromResource+ListTagsForResource", Rate: 10},
	"LabelParameterVersion":  {Family: "ssm:LabelParameterVersion", Rate: 10},
}

// Host is the server Parameter Store runs in (core.Host) and the one fault
// setting of its own.
type Host interface {
	core.Host
	// ParameterLimit is the emulator's lowered number of parameters of
	// each tier an account may have in a Region (emulator.Faults's
	// SSMParameterLimit; 0: AWS's limits). The caller holds the lock.
	ParameterLimit() int
	// DescribeWithoutARN: DescribeParameters leaves out every entry's ARN
	// (optional in the SSM API reference; emulator.Faults's
	// SSMDescribeWithoutARN). The caller holds the lock.
	DescribeWithoutARN() bool
}

// Call is one request's view of Parameter Store: the host, the partition
// its credentials and signature chose, and that partition's parameters.
type Call struct {
	Host
	core.Partition
	Params *Store
}

func (e *Call) resolveKMS(id string) (string, *core.Error) {
	return e.Keys().Resolve(e.Account, e.Region, id)
}

func (e *Call) kmsState(id string) string { return e.Keys().State(e.Account, e.Region, id) }

func (e *Call) kmsAliasARN(alias string) string { return e.Keys().AliasARN(e.Account, e.Region, alias) }

// ParameterDump is one Parameter Store parameter in the emulator's state
// dump (emulator.StateDump): its latest version (the value in clear) and
// its tags.
type ParameterDump struct {
	Account     string            `json:"account"`
	Region      string            `json:"region"`
	Name        string            `json:"name"`
	ARN         string            `json:"arn"`
	Type        string            `json:"type"`
	Value       string            `json:"value"`
	Version     int64             `json:"version"`
	Versions    int               `json:"versions"` // versions kept (at most 100)
	Tier        string            `json:"tier"`
	KeyID       string            `json:"key_id,omitempty"`
	Description string            `json:"description,omitempty"`
	Policies    string            `json:"policies,omitempty"`
	Labels      map[string]int64  `json:"labels,omitempty"` // label → version
	Tags        map[string]string `json:"tags"`
}

// Dump is the call's partition's parameters, in name order. The caller
// holds the lock.
func (e *Call) Dump() []ParameterDump {
	var out []ParameterDump
	for _, k := range e.Params.sortedKeys() {
		p := e.Params.byKey[k]
		v := p.latest()
		d := ParameterDump{
			Account: e.Account, Region: e.Region, Name: p.name, ARN: e.paramARN(p), Type: v.typ, Value: v.value,
			Version: v.version, Versions: len(p.versions), Tier: v.tier, KeyID: v.keyID, Description: v.description,
			Policies: v.policies, Tags: map[string]string{},
		}
		for t, val := range p.tags {
			d.Tags[t] = val
		}
		for _, o := range p.versions {
			for _, l := range o.labels {
				if d.Labels == nil {
					d.Labels = map[string]int64{}
				}
				d.Labels[l] = o.version
			}
		}
		out = append(out, d)
	}
	return out
}
