package config

import "github.com/sops-aws-sync/sops-aws-sync/internal/diag"

// Problem classes: aliases of the config:* tokens registered in
// internal/diag (summaries, next action, exit code; docs/results.md).
const (
	ClassUnknownKey   = diag.ConfigUnknownKey   // config file key that is no setting
	ClassUnknownEnv   = diag.ConfigUnknownEnv   // SOPS_AWS_SYNC_* variable that is no setting
	ClassFlagOnly     = diag.ConfigFlagOnly     // setting that may only be given as a flag
	ClassWrongType    = diag.ConfigWrongType    // value of the wrong type
	ClassInvalidValue = diag.ConfigInvalidValue // value of the right type but out of its rule
	ClassRequired     = diag.ConfigRequired     // required setting not given
	ClassFile         = diag.ConfigFile         // config file unreadable or not a YAML mapping
)

// Source names where a value came from.
type Source int

const (
	SourceDefault Source = iota
	SourceFile
	SourceEnv
	SourceFlag
)

func (s Source) String() string {
	switch s {
	case SourceFile:
		return "config file"
	case SourceEnv:
		return "environment"
	case SourceFlag:
		return "flag"
	}
	return "default"
}

func (s Source) origin() diag.Origin {
	switch s {
	case SourceFile:
		return diag.OriginFile
	case SourceEnv:
		return diag.OriginEnv
	case SourceFlag:
		return diag.OriginFlag
	}
	return diag.OriginDefault
}

// problem is one rejected setting while Resolve collects them; it becomes a
// diag.Diagnostic whose subject is the setting (never the value).
type problem struct {
	class   string
	setting string // flag name, environment variable name or config key
	source  Source
	reason  string
}

func (p problem) diagnostic() diag.Diagnostic {
	return diag.New(p.class, diag.Subject{Setting: p.setting, Origin: p.source.origin()}).WithSummary(p.reason)
}

func diagnostics(ps []problem) diag.Diagnostics {
	out := make(diag.Diagnostics, len(ps))
	for i, p := range ps {
		out[i] = p.diagnostic()
	}
	return out
}
