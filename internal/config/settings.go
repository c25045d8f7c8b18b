package config

import (
	"strconv"
	"strings"
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
)

// TypeName is the word shown in help and diagnostics for a kind.
func (k Kind) TypeName() string {
	switch k {
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindDuration:
		return "duration"
	case KindSize:
		return "size"
	}
	return "string"
}

// Setting describes one option of SPEC §2.1.
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
	ConfigFile          = "config"
	DetailedExitCode    = "detailed-exit-code"
	Concurrency         = "concurrency"
)

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

// Settings lists every option of SPEC §2.1 in the order of its table.
var Settings = []Setting{
	{Name: Repository, Default: ".", Usage: "path of the local Git repository"},
	{Name: Revision, Default: "HEAD", Usage: "commit-ish to read; resolved once to a full commit SHA"},
	{Name: RepositoryID, Required: true, Usage: "stable repository identity, e.g. owner/repo (part of the ownership scope)"},
	{Name: SourceRoot, Default: "secrets", Usage: "clean repo-relative directory holding the SOPS documents (\".\" = whole repository)"},
	{Name: SecretPrefix, Required: true, Usage: "secret name prefix; one trailing \"/\" is trimmed"},
	{Name: MaxEncryptedBytes, Kind: KindSize, Default: "8MiB", Usage: "largest committed document accepted (suffixes B, KiB, MiB, GiB)"},
	{Name: AllowEmpty, Kind: KindBool, Default: "false", Usage: "authorize deletions when the desired set is empty"},
	{Name: AWSRegion, Usage: "AWS Region (default: the SDK's chain)"},
	{Name: AWSProfile, Usage: "AWS shared config profile (default: the SDK's chain)"},
	{Name: RecoveryWindowDays, Kind: KindInt, Default: "30", Usage: "recovery window of scheduled deletions, 7-30 days"},
	{Name: RunTimeout, Kind: KindDuration, Default: "10m", Usage: "bound on the whole command"},
	{Name: OperationTimeout, Kind: KindDuration, Default: "30s", Usage: "bound on each AWS call (each page)"},
	{Name: VerificationTimeout, Kind: KindDuration, Default: "2m", Usage: "bound on the post-apply verification"},
	{Name: AWSMaxAttempts, Kind: KindInt, Default: "0", Usage: "SDK retry attempts per call (0 = SDK default)"},
	{Name: AWSMaxBackoff, Kind: KindDuration, Default: "0s", Usage: "largest SDK retry backoff (0 = SDK default)"},
	{Name: LogLevel, Default: "info", Usage: "debug, info, warn or error"},
	{Name: LogFormat, Default: "json", Usage: "json or text (logs go to stdout)"},
	{Name: ShowResourceNames, Kind: KindBool, Default: "false", Usage: "log real secret names and paths instead of resource-NNNN ordinals"},
	{Name: ReportFile, Usage: "write the redacted JSON report to this path"},
	{Name: ConfigFile, FlagOnly: true, Usage: "YAML file whose keys are flag names"},
	{Name: DetailedExitCode, Kind: KindBool, Default: "false", FlagOnly: true, PlanOnly: true, Usage: "exit 2 when any operation is planned"},
	{Name: Concurrency, Kind: KindInt, Default: strconv.Itoa(DefaultConcurrency), Usage: "parallel AWS calls inside one phase (1 = sequential)"},
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
