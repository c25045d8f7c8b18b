package root

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/reconcile"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/sync"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/version"
)

// NewCmdRoot returns the root command with plan, sync and version.
func NewCmdRoot(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sops-aws-sync <command> [flags]",
		Short: "Make an owned namespace of AWS Secrets Manager equal to the SOPS documents at one Git commit",
		Long: "sops-aws-sync reconciles AWS Secrets Manager with SOPS-encrypted documents committed to Git.\n" +
			"Exit codes: 0 ok, 2 drift (plan --detailed-exit-code), 3 invalid, 4 conflict, 5 apply or\n" +
			"observation failed, 6 verification did not converge, 130 interrupted. See docs/results.md.",
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitcode.UsageError{Class: "usage:unknown-command", Message: "unknown command; the commands are plan, sync and version"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if v, _ := cmd.Flags().GetBool("version"); v {
				_, err := fmt.Fprintln(f.IOStreams.Out, f.Build.Line())
				return err
			}
			return cmd.Help()
		},
	}
	// Our own --version, handled in RunE after Args: cobra's built-in one
	// (Command.Version) prints before arguments are validated, so
	// "--version extra" would exit 0 (SPEC §2: stray arguments exit 3).
	cmd.Flags().BoolP("version", "v", false, "print the version line")
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	cmd.SetFlagErrorFunc(flagError)
	cmd.AddCommand(plan.NewCmdPlan(f, nil), sync.NewCmdSync(f, nil), version.NewCmdVersion(f))
	return cmd
}

var flagNameRE = regexp.MustCompile(`^(unknown flag|flag needs an argument): (--[a-z0-9][a-z0-9-]{0,40})$`)

// flagError turns a pflag parse error into a UsageError that names at most
// the flag (a word of lower-case letters, digits and dashes), never a value.
func flagError(_ *cobra.Command, err error) error {
	msg := err.Error()
	if m := flagNameRE.FindStringSubmatch(msg); m != nil {
		if m[1] == "unknown flag" {
			return &exitcode.UsageError{Class: "usage:unknown-flag", Message: "unknown flag " + m[2]}
		}
		return &exitcode.UsageError{Class: "usage:flag-argument", Message: "flag " + m[2] + " needs a value"}
	}
	switch {
	case strings.HasPrefix(msg, "unknown flag"), strings.HasPrefix(msg, "unknown shorthand flag"):
		return &exitcode.UsageError{Class: "usage:unknown-flag", Message: "unknown flag"}
	case strings.HasPrefix(msg, "flag needs an argument"):
		return &exitcode.UsageError{Class: "usage:flag-argument", Message: "a flag needs a value"}
	}
	return &exitcode.UsageError{Class: "usage:bad-flag", Message: "malformed flag syntax"}
}

// Execute runs the command line args with f and returns the exit code.
func Execute(ctx context.Context, f *factory.Factory, args []string) int {
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	var ue *exitcode.UsageError
	if errors.As(err, &ue) {
		if sub, _, ferr := cmd.Find(args); ferr == nil && (sub.Name() == "plan" || sub.Name() == "sync") {
			if rerr := reconcile.EarlyReport(f, sub.Name(), args); rerr != nil {
				err = &exitcode.RunError{Diagnostic: err, ReportErr: rerr}
			}
		}
	} else if err != nil && !isKnown(err) {
		// cobra's own errors (e.g. from a subcommand lookup) may quote
		// arguments: replace them.
		err = &exitcode.UsageError{Class: "usage:invalid", Message: "the command line could not be parsed"}
	}
	for _, line := range exitcode.Diagnostic(err) {
		fmt.Fprintln(f.IOStreams.ErrOut, line)
	}
	return exitcode.For(err)
}

func isKnown(err error) bool {
	var re *exitcode.RunError
	var ue *exitcode.UsageError
	return errors.As(err, &re) || errors.As(err, &ue)
}

// Main is the binary's entry point: SIGINT and SIGTERM cancel the run (the
// run then ends "interrupted", exit 130, report still written); a second
// signal gets the default behaviour and ends the process at once.
func Main(b factory.BuildInfo, args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return Execute(ctx, factory.New(b), args)
}
