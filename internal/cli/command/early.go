package command

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// EarlyFiles writes an "invalid" report and a plan file holding ds for a
// plan, a sync or an unknown command whose command line could not be used
// (unknown flag, stray argument, repeated flag, mistyped command …), so
// that a caller keyed on them (the GitHub Action) still finds them. Each
// path comes from its flag in args (--report-file, --plan-file; parsed
// leniently, unknown flags ignored; a flag given twice is ambiguous and
// writes nothing) or else from its environment variable; with neither,
// that file is not written. Names are never shown (the settings were not
// resolved). It returns the diagnostics of the writes that failed
// (report:write-failed, planfile:write-failed).
func EarlyFiles(f *factory.Factory, args []string, ds diag.Diagnostics) diag.Diagnostics {
	fs := pflag.NewFlagSet("early", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	vals := map[string]*rawValue{}
	for _, s := range config.Settings {
		v := &rawValue{kind: s.Kind}
		fl := fs.VarPF(v, s.Name, "", "")
		if s.Kind == config.KindBool {
			fl.NoOptDefVal = "true"
		}
		vals[s.Name] = v
	}
	_ = fs.Parse(args)
	pathOf := func(name string) string {
		v := vals[name]
		switch {
		case v.sets > 1:
			return ""
		case v.sets == 1:
			return v.value
		}
		path := ""
		for _, kv := range f.Environ() {
			if p, ok := strings.CutPrefix(kv, config.EnvName(name)+"="); ok {
				path = p
			}
		}
		return path
	}
	var fails diag.Diagnostics
	if path := pathOf(config.ReportFile); path != "" {
		rep := report.New(f.Build.Version, "", vocab.StatusInvalid, vocab.VerificationNotRun, vocab.Counts{}, 0)
		if err := report.WriteFile(path, rep); err != nil {
			fails = append(fails, ReportFailure(err))
		}
	}
	if path := pathOf(config.PlanFile); path != "" {
		if err := planview.WriteFile(path, planView("", nil, append(slices.Clone(ds), fails...), false)); err != nil {
			fails = append(fails, PlanFailure(err))
		}
	}
	return fails
}
