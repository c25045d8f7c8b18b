package reconcile

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
)

// rawValue is a pflag.Value that only records the raw text: every value is
// parsed and validated by package config, uniformly for flags, environment
// and config file, so that no parse error can quote a value.
type rawValue struct {
	kind  config.Kind
	value string
}

func (v *rawValue) String() string     { return v.value }
func (v *rawValue) Set(s string) error { v.value = s; return nil }
func (v *rawValue) Type() string       { return v.kind.TypeName() }

// IsBoolFlag lets "--allow-empty" stand for "--allow-empty=true".
func (v *rawValue) IsBoolFlag() bool { return v.kind == config.KindBool }

// AddFlags registers every setting of SPEC §2.1 on cmd (plan-only ones only
// when plan is set).
func AddFlags(cmd *cobra.Command, plan bool) {
	fs := cmd.Flags()
	for _, s := range config.Settings {
		if s.PlanOnly && !plan {
			continue
		}
		v := &rawValue{kind: s.Kind}
		usage := s.Usage
		if s.Required {
			usage += " (required)"
		}
		if !s.FlagOnly {
			usage += " [env " + config.EnvName(s.Name) + "]"
		}
		f := fs.VarPF(v, s.Name, "", usage)
		f.DefValue = s.Default
		if s.Kind == config.KindBool {
			f.NoOptDefVal = "true"
		}
	}
	fs.SortFlags = false
}

// GivenFlags returns the flags set explicitly on the command line, with their
// raw values.
func GivenFlags(fs *pflag.FlagSet) map[string]string {
	out := map[string]string{}
	fs.Visit(func(f *pflag.Flag) {
		if _, ok := config.Lookup(f.Name); ok {
			out[f.Name] = f.Value.String()
		}
	})
	return out
}
