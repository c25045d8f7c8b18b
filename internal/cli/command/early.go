package command

import (
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// EarlyReport writes an "invalid" report for a plan, a sync or an unknown
// command whose command line could not be used (unknown flag, stray
// argument, repeated flag, mistyped command …), so that a caller keyed on
// the report (the GitHub Action) still finds one. The path comes from
// --report-file in args (parsed leniently, unknown flags ignored; a
// --report-file given twice is ambiguous and writes nothing) or else from
// SOPS_AWS_SYNC_REPORT_FILE; with neither, nothing is written. It returns
// the write error, if any.
func EarlyReport(f *factory.Factory, args []string) error {
	fs := pflag.NewFlagSet("early", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	var rf *rawValue
	for _, s := range config.Settings {
		v := &rawValue{kind: s.Kind}
		fl := fs.VarPF(v, s.Name, "", "")
		if s.Kind == config.KindBool {
			fl.NoOptDefVal = "true"
		}
		if s.Name == config.ReportFile {
			rf = v
		}
	}
	_ = fs.Parse(args)
	path := ""
	switch {
	case rf.sets > 1:
		return nil
	case rf.sets == 1:
		path = rf.value
	default:
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
