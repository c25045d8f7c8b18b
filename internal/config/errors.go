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
	// ClassScopeAmbiguous: a per-scope setting given as a flag or variable
	// while the config file lists scopes.
	ClassScopeAmbiguous = diag.ConfigScopeAmbiguous
	// ClassNotPerScope: a scope entry sets a setting that is not per-scope.
	ClassNotPerScope = diag.ConfigNotPerScope
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

// Origin is s as a diagnostic subject's origin (internal/diag).
func (s Source) Origin() diag.Origin {
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

// Problem is one rejected setting while Resolve collects them. Resolve
// returns each as a diag.Diagnostic whose subject is the setting (never the
// value); its stderr line is "<where>: <reason> (<class>)".
type Problem struct {
	Class   string
	Setting string // flag name, environment variable name or config key
	Source  Source
	Reason  string
}

// settingName is the setting p names: its flag or config-key name (an
// environment variable's name mapped back).
func (p Problem) settingName() string {
	if p.Source == SourceEnv {
		return settingForEnv(p.Setting)
	}
	return p.Setting
}

// Diagnostic is p as the one diagnostic value (internal/diag).
func (p Problem) Diagnostic() diag.Diagnostic {
	return diag.New(p.Class, diag.Subject{Setting: p.Setting, Origin: p.Source.Origin()}).WithSummary(p.Reason)
}

func diagnostics(ps []Problem) diag.Diagnostics {
	out := make(diag.Diagnostics, len(ps))
	for i, p := range ps {
		out[i] = p.Diagnostic()
	}
	return out
}
