package config

import (
	"fmt"
	"strings"
)

// Problem classes: stable tokens of configuration diagnostics (docs/results.md).
const (
	ClassUnknownKey   = "config:unknown-key"   // config file key that is no setting
	ClassUnknownEnv   = "config:unknown-env"   // SOPS_AWS_SYNC_* variable that is no setting
	ClassFlagOnly     = "config:flag-only"     // setting that may only be given as a flag
	ClassWrongType    = "config:wrong-type"    // value of the wrong type
	ClassInvalidValue = "config:invalid-value" // value of the right type but out of its rule
	ClassRequired     = "config:required"      // required setting not given
	ClassFile         = "config:file"          // config file unreadable or not a YAML mapping
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

// Problem is one rejected setting. Its text names the setting, the source and
// the rule, never the rejected value.
type Problem struct {
	Class   string
	Setting string // flag name, environment variable name or config key
	Source  Source
	Reason  string
}

func (p Problem) String() string {
	var where string
	switch p.Source {
	case SourceFlag:
		where = "flag --" + p.Setting
	case SourceEnv:
		where = "environment variable " + p.Setting
	case SourceFile:
		if p.Setting == "" {
			where = "config file"
		} else {
			where = "config file key " + p.Setting
		}
	default:
		where = "setting --" + p.Setting
	}
	return fmt.Sprintf("%s: %s (%s)", where, p.Reason, p.Class)
}

// Error is returned by Resolve when any setting is rejected. All problems
// found are listed, in a stable order.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return "invalid configuration: " + strings.Join(lines, "; ")
}

// NextAction is the operator's next step for any configuration error.
const NextAction = "fix the named setting (see docs/configuration.md) and re-run; nothing was read from Git or AWS"
