package reconcile

import (
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// EarlyReport writes an "invalid" report for a plan or sync whose command
// line could not be parsed (unknown flag, stray argument …), so that a
// caller keyed on the report (the GitHub Action) still finds one. The path
// comes from --report-file in args (parsed leniently, unknown flags
// ignored) or else from SOPS_AWS_SYNC_REPORT_FILE; with neither, nothing is
// written. It returns the write error, if any.
func EarlyReport(f *factory.Factory, command string, args []string) error {
	fs := pflag.NewFlagSet(command, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	for _, s := range config.Settings {
		v := &rawValue{kind: s.Kind}
		fl := fs.VarPF(v, s.Name, "", "")
		if s.Kind == config.KindBool {
			fl.NoOptDefVal = "true"
		}
	}
	_ = fs.Parse(args)
	path := ""
	if fl := fs.Lookup(config.ReportFile); fl != nil && fl.Changed {
		path = fl.Value.String()
	}
	if path == "" {
		for _, kv := range f.Environ() {
			if v, ok := strings.CutPrefix(kv, config.EnvName(config.ReportFile)+"="); ok {
				path = v
			}
		}
	}
	if path == "" {
		return nil
	}
	return report.WriteFile(path, report.New(f.Build.Version, "", vocab.StatusInvalid, vocab.VerificationNotRun, vocab.Counts{}, 0))
}
