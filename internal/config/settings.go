package config

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Kind is the value type of a setting. It decides how a raw value is parsed
// and which YAML node types are accepted for it.
type Kind int

const (
	// KindString is free text, validated by the setting's own rule.
	KindString Kind = iota
	// KindBool is "true" or "false" (YAML !!bool).
	KindBool
	// KindInt is a base-10 integer (YAML !!int).
	KindInt
	// KindDuration is a Go duration such as "30s" or "10m" (YAML string).
	KindDuration
	// KindSize is a byte count with an optional suffix B, KiB, MiB or GiB
	// (YAML string, or !!int for a plain byte count).
	KindSize
	// KindTags is a set of KEY=VALUE pairs: a flag given once per pair
	// (--tag team=platform --tag env=prod), an environment variable with
	// one pair per line, or a YAML mapping in the config file. The key ends
	// at the first "=". The raw value is the pairs joined by newlines
	// (tags cannot hold a newline). Flag, variable and file each give the
	// whole set; the one of highest precedence wins, they are not merged.
	KindTags
	// KindList is a list of secret names: a flag given once per name
	// (--adopt prod/app/db --adopt prod/app/api), an environment variable
	// with names separated by newlines or commas (a secret name holds
	// neither), or a YAML sequence of strings in the config file. The raw
	// value is the names joined by newlines. Like KindTags, the source of
	// highest precedence gives the whole list; sources are not merged.
	KindList
	// KindAWSOwned is the aws-owned list (SPEC §13): in the config file a
	// YAML sequence of mappings (secret, keys, optional generate); as a
	// flag or environment variable the same list as one JSON array
	// ([{"secret":"db/*","keys":["/password"],"generate":32}]). The raw
	// value is that JSON text.
	KindAWSOwned
	// KindCommaList is a list whose items are not secret names
	// (replica-regions, key-services): a flag or environment variable
	// holding the items separated by commas, or in the config file either
	// that string or a YAML sequence of strings (one item each, none
	// holding a comma or a line break). The raw value is the items joined
	// by commas, so the setting's own parser reads both forms alike.
	KindCommaList

	// kindEnd counts the kinds: the table kinds has one row per kind.
	kindEnd
)

// TypeName is the word shown in help and diagnostics for a kind (its row
// of kinds).
func (k Kind) TypeName() string { return kinds[k].typeName }

// Repeatable reports whether a flag of the kind is given once per item
// (--tag, --adopt): its raw value is the items joined by newlines.
func (k Kind) Repeatable() bool { return kinds[k].lines }

// Setting is the one declaration of an option of SPEC §2.1: its flag name
// (also its config key; its environment variable is EnvName(Name)), type,
// default, help text, where it may be given, and bind, which checks the
// setting's own rule and fills the typed option field(s) it feeds. Adding a
// setting is one entry in Settings plus the code that uses its field.
type Setting struct {
	// Name is the flag name without dashes; it is also the config file key.
	Name string
	Kind Kind
	// Default is the raw default ("" = none).
	Default string
	// Usage is the one-line help text.
	Usage string
	// Required settings have no default and must be given.
	Required bool
	// FlagOnly settings are read from the command line only: no environment
	// variable and no config key (--config itself, --detailed-exit-code).
	FlagOnly bool
	// PlanOnly settings exist only on the plan command.
	PlanOnly bool
	// PerScope settings may differ between the scopes of one run (SPEC
	// §10): a scope entry of the config file's scopes: may set them, and
	// while scopes: is set they may not be given as a flag or environment
	// variable (config:scope-ambiguous). Each fills only fields of Desired,
	// Engine or AWS, the sub-structs every Scope carries.
	PerScope bool
	// Items names one item of a list-valued setting (KindList,
	// KindCommaList) in the expected form of a type error ("Region codes
	// (REGION or REGION=KMS_KEY)"); "" = the kind's own words.
	Items string
	// bind receives the value parsed for Kind (string, bool, int,
	// time.Duration, or int64 bytes for KindSize), checks the setting's
	// rule and stores it; the error is the rule's reason, never the value.
	bind func(o *Options, v any) error
}

// into returns a bind function for values of type T: check (nil = none)
// may reject or normalise the value; the result is stored in every field.
func into[T any](check func(T) (T, error), fields ...func(*Options) *T) func(*Options, any) error {
	return func(o *Options, v any) error {
		t, ok := v.(T)
		if !ok {
			panic("config: a setting's Kind does not match its bind type")
		}
		if check != nil {
			var err error
			if t, err = check(t); err != nil {
				return err
			}
		}
		for _, f := range fields {
			*f(o) = t
		}
		return nil
	}
}

func between(lo, hi int, reason string) func(int) (int, error) {
	return func(n int) (int, error) {
		if n < lo || n > hi {
			return 0, errors.New(reason)
		}
		return n, nil
	}
}

func positive(d time.Duration) (time.Duration, error) {
	if d <= 0 {
		return 0, errors.New("must be greater than zero")
	}
	return d, nil
}

func nonNegative(d time.Duration) (time.Duration, error) {
	if d < 0 {
		return 0, errors.New("must not be negative")
	}
	return d, nil
}

func positiveSize(n int64) (int64, error) {
	if n <= 0 {
		return 0, errors.New("must be greater than zero")
	}
	return n, nil
}

// ruleOf adapts a model rule (which returns a reason) to a bind check.
func ruleOf(rule func(string) error) func(string) (string, error) {
	return func(v string) (string, error) { return v, rule(v) }
}

func oneOf(reason string, values ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		if slices.Contains(values, v) {
			return v, nil
		}
		return "", errors.New(reason)
	}
}

func commitish(v string) (string, error) {
	if strings.HasPrefix(v, "-") {
		return "", errors.New("must be a commit-ish, not an option")
	}
	return v, nil
}

func repositoryID(v string) (string, error) {
	if len(v) > 256 {
		return "", errors.New("must be at most 256 bytes")
	}
	return v, nil
}

// region checks --aws-region: a Region code of an AWS partition, as the
// SDK's endpoint tables write them (model.ValidRegion).
func region(v string) (string, error) {
	if !model.ValidRegion(v) {
		return "", errors.New("must be an AWS Region code such as eu-west-1")
	}
	return v, nil
}

// Setting names (flag names, config keys).
const (
	Repository          = "repository"
	Revision            = "revision"
	RepositoryID        = "repository-id"
	SourceRoot          = "source-root"
	SecretPrefix        = "secret-prefix"
	MaxEncryptedBytes   = "max-encrypted-bytes"
	AllowEmpty          = "allow-empty"
	AWSRegion           = "aws-region"
	AWSProfile          = "aws-profile"
	RoleARN             = "role-arn"
	PlanRoleARN         = "plan-role-arn"
	RecoveryWindowDays  = "recovery-window-days"
	RunTimeout          = "run-timeout"
	OperationTimeout    = "operation-timeout"
	VerificationTimeout = "verification-timeout"
	AWSMaxAttempts      = "aws-max-attempts"
	AWSMaxBackoff       = "aws-max-backoff"
	LogLevel            = "log-level"
	LogFormat           = "log-format"
	ShowResourceNames   = "show-resource-names"
	ReportFile          = "report-file"
	PlanFile            = "plan-file"
	KMSKeyID            = "kms-key-id"
	Description         = "description"
	Tag                 = "tag"
	MaxDeletions        = "max-deletions"
	ConfigFile          = "config"
	ScopeFilter         = "scope"
	DetailedExitCode    = "detailed-exit-code"
	Concurrency         = "concurrency"
	KeyServices         = "key-services"
	ReplicaRegions      = "replica-regions"
	Adopt               = "adopt"
	AdoptRequireMatch   = "adopt-require-match"
	AWSOwned            = "aws-owned"
	Target              = "target"
	ParameterTier       = "parameter-tier"
	MaxUnreachable      = "max-unreachable-scopes"
	ParallelScopes      = "parallel-scopes"
	Policy              = "policy"
	PolicyLabels        = "policy-labels"
)

// DefaultParallelScopes is --parallel-scopes 0 resolved: 4 buckets per
// CPU the process may use (runtime.GOMAXPROCS), at least 4 and at most
// 32. A bucket's work is mostly waiting on AWS (each bucket runs up to
// --concurrency calls of its own and is paced to its own quota), so more
// buckets than CPUs keep the run busy; the ceiling bounds the memory of
// the observations held at once and the connections open (each bucket
// keeps up to --concurrency). On the 2-CPU reference machine it is 8.
func DefaultParallelScopes() int { return max(4, min(32, 4*runtime.GOMAXPROCS(0))) }

// DefaultConcurrency is the default of --concurrency: parallel AWS calls
// inside one phase (SPEC §2.1
// says "tune by benchmark"). 28 is where, on the 2-CPU reference
// machine at 20 ms per call, a no-op sync of 10,000 secrets is both
// ≥ 20× faster than --concurrency 1 (needs ≥ 26) and within 1.5× of
// its latency-and-quota lower bound (needs ≤ 32, because decryption is
// CPU work outside the bound): 22.6× and 1.40× measured, where 32 gave
// 1.44–1.60× over four runs and 24 gave 19.0–19.8×. At 20 ms per call
// it offers at most 1,400 calls/s (14 % of the account's shared
// 10,000/s DescribeSecret quota; about 1,250/s measured) and about 60
// BatchGetSecretValue/s (of 100/s). docs/benchmarks.md has the sweep.
const DefaultConcurrency = 28

// Settings lists every option of SPEC §2.1 in the order of its table; each
// entry is the one declaration of its setting (docs/configuration.md's
// table is checked against it by TestConfigurationDocMatchesSettings).
var Settings = []Setting{
	{Name: Repository, Default: ".", Usage: "path of the local Git repository",
		bind: into[string](nil, func(o *Options) *string { return &o.Desired.RepoPath })},
	{Name: Revision, Default: "HEAD", Usage: "commit-ish to read; resolved once to a full commit SHA",
		bind: into(commitish, func(o *Options) *string { return &o.Desired.Revision })},
	{Name: RepositoryID, Required: true, Usage: "stable repository identity, e.g. owner/repo (part of the ownership scope)",
		bind: into(repositoryID, func(o *Options) *string { return &o.Desired.RepositoryID })},
	{Name: SourceRoot, PerScope: true, Default: "secrets", Usage: "clean repo-relative directory holding the SOPS documents (\".\" = whole repository)",
		bind: into(model.CleanSourceRoot, func(o *Options) *string { return &o.Desired.SourceRoot })},
	{Name: SecretPrefix, PerScope: true, Required: true, Usage: "secret name prefix; one trailing \"/\" is trimmed",
		bind: into(model.CleanPrefix, func(o *Options) *string { return &o.Desired.SecretPrefix })},
	{Name: Target, PerScope: true, Default: string(model.TargetSecretsManager), Usage: "AWS service the scope's documents are written to: secrets-manager (one secret each) or parameter-store (one SecureString parameter each, named with a leading \"/\")",
		bind: func(o *Options, v any) error {
			t, err := model.ParseTarget(v.(string))
			o.Desired.Target = t
			return err
		}},
	{Name: ParameterTier, PerScope: true, Default: model.TierStandard, Usage: "tier of the parameters of a parameter-store scope: standard (values up to 4,096 bytes, no charge) or advanced (8,192 bytes, charged); never changed silently",
		bind: into(oneOf("must be standard or advanced", model.Tiers...),
			func(o *Options) *string { return &o.Desired.ParameterTier },
			func(o *Options) *string { return &o.Engine.ParameterTier },
			func(o *Options) *string { return &o.AWS.ParameterTier })},
	{Name: MaxEncryptedBytes, Kind: KindSize, Default: "8MiB", Usage: "largest committed document accepted (suffixes B, KiB, MiB, GiB)",
		bind: into(positiveSize, func(o *Options) *int64 { return &o.Desired.MaxEncryptedBytes })},
	{Name: AllowEmpty, PerScope: true, Kind: KindBool, Default: "false", Usage: "authorize deletions when the desired set is empty",
		bind: into[bool](nil,
			func(o *Options) *bool { return &o.Engine.AllowEmpty },
			func(o *Options) *bool { return &o.Desired.AllowEmpty })},
	{Name: AWSRegion, PerScope: true, Usage: "AWS Region (default: the SDK's chain)",
		bind: into(region, func(o *Options) *string { return &o.AWS.Region })},
	{Name: AWSProfile, Usage: "AWS shared config profile (default: the SDK's chain)",
		bind: into[string](nil, func(o *Options) *string { return &o.AWS.Profile })},
	{Name: RoleARN, PerScope: true, Usage: "IAM role assumed (STS AssumeRole, session sops-aws-sync-<scope>) from the SDK chain's credentials for every AWS call of the scope (not given = those credentials)",
		bind: into(ruleOf(model.ValidateRoleARN), func(o *Options) *string { return &o.AWS.RoleARN })},
	{Name: PlanRoleARN, PerScope: true, Usage: "IAM role plan assumes instead of role-arn (read-only runs: plan and the drift check); sync always assumes role-arn",
		bind: into(ruleOf(model.ValidateRoleARN), func(o *Options) *string { return &o.AWS.PlanRoleARN })},
	{Name: RecoveryWindowDays, PerScope: true, Kind: KindInt, Default: "30", Usage: "recovery window of scheduled deletions, 7-30 days",
		bind: into(between(7, 30, "must be between 7 and 30 days"), func(o *Options) *int { return &o.Engine.RecoveryWindowDays })},
	{Name: RunTimeout, Kind: KindDuration, Default: "10m", Usage: "bound on the whole command",
		bind: into(positive, func(o *Options) *time.Duration { return &o.Run.Timeout })},
	{Name: OperationTimeout, Kind: KindDuration, Default: "30s", Usage: "bound on each AWS call (each page)",
		bind: into(positive,
			func(o *Options) *time.Duration { return &o.AWS.OperationTimeout },
			func(o *Options) *time.Duration { return &o.Desired.KeyServiceTimeout })},
	{Name: VerificationTimeout, Kind: KindDuration, Default: "2m", Usage: "bound on the post-apply verification",
		bind: into(positive, func(o *Options) *time.Duration { return &o.Engine.VerificationTimeout })},
	{Name: AWSMaxAttempts, Kind: KindInt, Default: "0", Usage: "SDK retry attempts per call (0 = SDK default)",
		bind: into(between(0, 100, "must be between 0 and 100 (0 = SDK default)"), func(o *Options) *int { return &o.AWS.MaxAttempts })},
	{Name: AWSMaxBackoff, Kind: KindDuration, Default: "0s", Usage: "largest SDK retry backoff (0 = SDK default)",
		bind: into(nonNegative, func(o *Options) *time.Duration { return &o.AWS.MaxBackoff })},
	{Name: LogLevel, Default: "info", Usage: "debug, info, warn or error",
		bind: into(oneOf("must be one of debug, info, warn, error", "debug", "info", "warn", "error"), func(o *Options) *string { return &o.Output.LogLevel })},
	{Name: LogFormat, Default: "json", Usage: "json or text (logs go to stdout)",
		bind: into(oneOf("must be json or text", "json", "text"), func(o *Options) *string { return &o.Output.LogFormat })},
	{Name: ShowResourceNames, Kind: KindBool, Default: "false", Usage: "log real secret names and paths instead of resource-NNNN ordinals",
		bind: into[bool](nil,
			func(o *Options) *bool { return &o.Output.ShowResourceNames },
			func(o *Options) *bool { return &o.Desired.ShowResourceNames },
			func(o *Options) *bool { return &o.Engine.ShowResourceNames })},
	{Name: ReportFile, Usage: "write the redacted JSON report to this path",
		bind: into[string](nil, func(o *Options) *string { return &o.Output.ReportFile })},
	{Name: PlanFile, Usage: "write the redacted JSON plan file (schema sops-aws-sync/plan/v2) to this path",
		bind: into[string](nil, func(o *Options) *string { return &o.Output.PlanFile })},
	{Name: KMSKeyID, PerScope: true, Usage: "KMS key of owned secrets: key id, key ARN, alias/NAME or alias ARN (not given = not managed)",
		bind: func(o *Options, v any) error {
			// The one AWS managed key a scope may name is its target's
			// (model.Target.ManagedKMSAlias); target is bound before.
			id := v.(string)
			if err := model.ValidateKMSKeyIDFor(o.Desired.Target, id); err != nil {
				return err
			}
			o.Engine.Metadata.KMSKeyID = id
			return nil
		}},
	{Name: Description, PerScope: true, Usage: "description of owned secrets, at most 2,048 characters (not given = not managed)",
		bind: func(o *Options, v any) error {
			d := v.(string)
			if err := model.ValidateDescription(d); err != nil {
				return err
			}
			// A target may store shorter descriptions (Parameter Store's is
			// at most 1,024 characters: SSM API reference PutParameter;
			// model.Target.MaxDescription); target is bound before.
			if t := o.Desired.Target; utf8.RuneCountInString(d) > t.MaxDescription() {
				return fmt.Errorf("must be at most %s characters for target %s", thousands(t.MaxDescription()), t.Resolved())
			}
			o.Engine.Metadata.Description = d
			return nil
		}},
	{Name: Tag, PerScope: true, Kind: KindTags, Usage: "KEY=VALUE tag of owned secrets; repeat for more (only these keys are managed)",
		bind: into[map[string]string](func(m map[string]string) (map[string]string, error) { return m, model.ValidateTags(m) },
			func(o *Options) *map[string]string { return &o.Engine.Metadata.Tags })},
	{Name: MaxDeletions, PerScope: true, Kind: KindInt, Usage: "block the run when the plan would schedule more deletions than this (not given = no limit)",
		bind: func(o *Options, v any) error {
			n := v.(int)
			if n < 0 {
				return errors.New("must be 0 or more")
			}
			o.Engine.MaxDeletions = &n
			return nil
		}},
	{Name: ReplicaRegions, PerScope: true, Kind: KindCommaList, Items: "Region codes (REGION or REGION=KMS_KEY)", Usage: "replica Regions of owned secrets, comma-separated: REGION or REGION=KMS_KEY (not given = replicas are not managed: any replica is a conflict)",
		bind: func(o *Options, v any) error {
			rs, err := model.ParseReplicaRegions(v.(string))
			if err == nil {
				// A target without replication refuses it (SPEC §16;
				// target is bound before).
				err = refused(o.Desired.Target, ReplicaRegions)
			}
			if err == nil {
				// aws-region is declared (so bound) before: a given Region
				// is checked here; the SDK chain's Region by the engine.
				err = model.CheckReplicaHome(o.AWS.Region, rs)
			}
			if err != nil {
				return err
			}
			o.Engine.Replicas = rs
			return nil
		}},
	{Name: ConfigFile, FlagOnly: true, Usage: "YAML file whose keys are flag names",
		bind: into[string](nil, func(o *Options) *string { return &o.Run.ConfigFile })},
	{Name: ScopeFilter, FlagOnly: true, Usage: "run only these scopes of the config file's scopes:, comma-separated NAME[,NAME...] (not given = every scope)",
		bind: func(o *Options, v any) error {
			names, err := scopeNames(v.(string))
			o.Run.ScopeNames = names
			return err
		}},
	{Name: MaxUnreachable, Kind: KindInt, Default: "0", Usage: "skip up to this many scopes whose account cannot be reached (STS AssumeRole refused or not answered): each is reported unreachable and the run exits 5 after the others converged; more than this = nothing applied anywhere (0 = all or nothing)",
		bind: into(between(0, 10000, "must be between 0 and 10000"), func(o *Options) *int { return &o.Run.MaxUnreachable })},
	{Name: ParallelScopes, Kind: KindInt, Default: "0", Usage: "(account, Region) buckets of a run worked on at once, in planning and in apply; one bucket's scopes always run one after another (0 = sized to the machine: 4 per CPU, 4 to 32)",
		bind: func(o *Options, v any) error {
			n := v.(int)
			if n < 0 || n > 1000 {
				return errors.New("must be between 0 and 1000 (0 = sized to the machine)")
			}
			if n == 0 {
				n = DefaultParallelScopes()
			}
			o.Run.ParallelScopes = n
			return nil
		}},
	{Name: Policy, PlanOnly: true, Usage: "check the plan with the Rego policies of this directory or file (OPA, in-process, offline): a denial fails the plan with exit 3, gate:policy-denied, its messages in the plan file (docs/policy-checks.md)",
		bind: into[string](nil, func(o *Options) *string { return &o.Run.Policy })},
	{Name: PolicyLabels, PlanOnly: true, Kind: KindCommaList, Items: "labels", Usage: "labels of the change under review, comma-separated, given to the policies as data.sops_aws_sync.labels (the Action and the GitLab component pass the pull or merge request's)",
		bind: func(o *Options, v any) error {
			labels, err := policyLabels(v.(string))
			o.Run.PolicyLabels = labels
			return err
		}},
	{Name: DetailedExitCode, Kind: KindBool, Default: "false", FlagOnly: true, PlanOnly: true, Usage: "exit 2 when any operation is planned",
		bind: into[bool](nil, func(o *Options) *bool { return &o.Run.DetailedExitCode })},
	{Name: Concurrency, Kind: KindInt, Default: strconv.Itoa(DefaultConcurrency), Usage: "parallel AWS calls inside one phase (1 = sequential)",
		bind: into(between(1, 64, "must be between 1 and 64"),
			func(o *Options) *int { return &o.Engine.Concurrency },
			func(o *Options) *int { return &o.AWS.Concurrency },
			func(o *Options) *int { return &o.Desired.Concurrency })},
	{Name: KeyServices, Kind: KindCommaList, Items: "key services (age, pgp, aws-kms[=PATTERN], …)", Default: model.DefaultKeyServices, Usage: "SOPS key services decryption may contact, comma-separated: age, pgp, aws-kms[=ARN pattern], aws-kms-role=PATTERN, aws-kms-profile=NAME, vault=URL, gcp-kms[=PATTERN], azure-kv=URL, hckms[=PATTERN]",
		bind: func(o *Options, v any) error {
			k, err := model.ParseKeyServices(v.(string))
			o.Desired.KeyServices = k
			return err
		}},
	{Name: Adopt, PerScope: true, Kind: KindList, Items: "secret names", Usage: "full name of a secret made outside this tool to take ownership of (the commit's document for it must exist); repeat for more",
		bind: into(adoptNames, func(o *Options) *[]string { return &o.Engine.Adopt })},
	{Name: AdoptRequireMatch, PerScope: true, Kind: KindBool, Default: "false", Usage: "adopt a secret only when its value already equals the document's (else conflict adopt-mismatch)",
		bind: into[bool](nil, func(o *Options) *bool { return &o.Engine.AdoptRequireMatch })},
	{Name: AWSOwned, PerScope: true, Kind: KindAWSOwned, Usage: "keys of matching secrets that AWS owns (rotation, generated values): a list of {secret: pattern relative to the prefix, keys: [RFC 6901 pointers], generate: length}; as a flag or variable one JSON array",
		bind: func(o *Options, v any) error {
			e := v.([]model.AWSOwned)
			if err := model.ValidateAWSOwned(e); err != nil {
				return err
			}
			// A target whose service owns no key of a value refuses it
			// (Parameter Store rotates nothing: docs/parameter-store.md;
			// target is bound before).
			if len(e) > 0 {
				if err := refused(o.Desired.Target, AWSOwned); err != nil {
					return err
				}
			}
			o.Engine.AWSOwned = e
			return nil
		}},
}

// adoptNames checks the adopt list: each entry a valid secret name
// (model.ValidateName, SPEC §3.4), none twice. Whether a document of the
// commit maps to it is checked once the desired state is loaded
// (plan.NotDesired, config:adopt-not-desired).
func adoptNames(names []string) ([]string, error) {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if err := model.ValidateName(n); err != nil {
			return nil, errors.New("each entry must be a full secret name: " + err.Error())
		}
		if seen[n] {
			return nil, errors.New("must not name one secret twice")
		}
		seen[n] = true
	}
	return names, nil
}

// scopeNames parses --scope: scope names (model.ValidateScopeName)
// separated by ",", none twice.
func scopeNames(v string) ([]string, error) {
	names := strings.Split(v, ",")
	for i, n := range names {
		if model.ValidateScopeName(n) != nil {
			return nil, errors.New("must be scope names separated by \",\" (each " + model.ErrScopeName.Error() + ")")
		}
		if slices.Contains(names[:i], n) {
			return nil, errors.New("must not name one scope twice")
		}
	}
	return names, nil
}

// Lookup returns the setting named name.
func Lookup(name string) (Setting, bool) {
	for _, s := range Settings {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}

// EnvPrefix is the prefix of every environment variable the CLI reads.
const EnvPrefix = "SOPS_AWS_SYNC_"

// EnvName returns the environment variable of a setting:
// SOPS_AWS_SYNC_<NAME> upper-cased with "-" → "_".
func EnvName(name string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// settingForEnv maps an environment variable name back to a setting name.
func settingForEnv(env string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(env, EnvPrefix)), "_", "-")
}

// refused is the reason target t refuses setting (model.Target.Refuses),
// nil when it takes it.
func refused(t model.Target, setting string) error {
	if reason, ok := t.Refuses(setting); ok {
		return fmt.Errorf("is not available for target %s: %s", t.Resolved(), reason)
	}
	return nil
}

// thousands writes n with a comma between groups of three digits (1,024).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// policyLabels parses --policy-labels: comma-separated labels, each
// trimmed, empty ones dropped, at most 100 of at most 255 bytes, none
// holding a control character.
func policyLabels(raw string) ([]string, error) {
	var out []string
	for _, l := range strings.Split(raw, ",") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if len(l) > 255 || strings.IndexFunc(l, unicode.IsControl) >= 0 {
			return nil, errors.New("each label must be at most 255 bytes without control characters")
		}
		out = append(out, l)
	}
	if len(out) > 100 {
		return nil, errors.New("at most 100 labels")
	}
	return out, nil
}
