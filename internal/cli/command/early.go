package command

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
)

// EarlyFiles writes an "invalid" report and a plan file holding ds for a
// plan, a sync or an unknown command whose command line could not be used
// (unknown flag, stray argument, repeated flag, mistyped command …), so
// that a caller keyed on them (the GitHub Action) still finds them. Each
// path comes from its flag in args (--report-file, --plan-file; parsed
// leniently, unknown flags ignored; a flag given twice is ambiguous and
// writes nothing) or else from its environment variable; with neither,
// that file is not written. Names are never shown (the settings were not
// resolved). The files go through the outputs of every run (probe, then
// write; two flags naming one file write the report only). It returns the
// command's error: an *exitcode.RunError (status invalid) holding ds and
// the diagnostics of the outputs that failed (report:*, planfile:*).
func EarlyFiles(f *factory.Factory, args []string, ds diag.Diagnostics) error {
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
		for _, kv := range f.Host.Environ() {
			if p, ok := strings.CutPrefix(kv, config.EnvName(name)+"="); ok {
				path = p
			}
		}
		return path
	}
	outs := newOutputs(f.Build.Version, pathOf(config.ReportFile), pathOf(config.PlanFile), false, nil, nil)
	fails := outs.probe()
	return outs.write(conclude(run.Stopped(append(slices.Clone(ds), fails...)), how{}))
}
