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
	"github.com/spf13/pflag"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/command"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/scopes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/show"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/version"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// NewCmdRoot returns the root command with plan, sync, validate, import,
// show, scopes and version.
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
				return usage(diag.UsageUnknownCommand, "")
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
	cmd.SuggestionsMinimumDistance = 2 // cobra's own default, set so unknownCommand sees it
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	cmd.SetFlagErrorFunc(flagError)
	cmd.AddCommand(command.NewCmdPlan(f, nil), command.NewCmdSync(f, nil), command.NewCmdValidate(f, nil), command.NewCmdImport(f, nil), show.NewCmdShow(f, nil), scopes.NewCmdScopes(f, nil), version.NewCmdVersion(f, command.NoArgs))
	return cmd
}

var flagNameRE = regexp.MustCompile(`^(unknown flag|flag needs an argument): (--[a-z0-9][a-z0-9-]{0,40})$`)

// usage is a one-diagnostic usage error; summary "" keeps the registry's.
func usage(class, summary string) error {
	return diag.Diagnostics{diag.New(class, diag.Subject{}).WithSummary(summary)}
}

// flagError turns a pflag parse error into a usage diagnostic that names at
// most the flag (a word of lower-case letters, digits and dashes), never a
// value.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := flagNameRE.FindStringSubmatch(msg); m != nil {
		if m[1] == "unknown flag" {
			return usage(diag.UsageUnknownFlag, "unknown flag "+m[2]+nearestFlag(cmd, strings.TrimPrefix(m[2], "--")))
		}
		return usage(diag.UsageFlagArgument, "flag "+m[2]+" needs a value")
	}
	switch {
	case strings.HasPrefix(msg, "unknown flag"), strings.HasPrefix(msg, "unknown shorthand flag"):
		return usage(diag.UsageUnknownFlag, "")
	case strings.HasPrefix(msg, "flag needs an argument"):
		return usage(diag.UsageFlagArgument, "")
	}
	return usage(diag.UsageBadFlag, "")
}

// nearestFlag is "; did you mean --NAME?" for the flag of cmd nearest to
// name (config.Nearest: the rule of the config keys' suggestion), "" when
// none is close or cmd is unknown.
func nearestFlag(cmd *cobra.Command, name string) string {
	if cmd == nil {
		return ""
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if n := config.Nearest(name, names); n != "" {
		return "; did you mean --" + n + "?"
	}
	return ""
}

// commandWord returns the word cobra takes as the command: the first
// argument that is neither a flag nor the value of one, by cobra's own rule
// for flags before the command (a "--flag" or "-f" without "=" that is not a
// boolean flag of root takes the next argument as its value).
func commandWord(root *cobra.Command, args []string) string {
	root.InitDefaultHelpFlag()
	isBool := func(fl *pflag.Flag) bool { return fl != nil && fl.NoOptDefVal != "" }
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && !isBool(root.Flags().Lookup(a[2:])) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if !strings.Contains(a, "=") && len(a) == 2 && !isBool(root.Flags().ShorthandLookup(a[1:])) {
				i++
			}
		default:
			return a
		}
	}
	return ""
}

// unknownCommand returns the usage:unknown-command diagnostic for a command
// word that names no command, with cobra's suggestion when there is one
// ("plna" → plan); nil when word is a command. The word itself is never
// quoted: it may be a value that lost its flag.
func unknownCommand(root *cobra.Command, word string) error {
	if word == "" || word == "help" {
		return nil
	}
	for _, c := range root.Commands() {
		if c.Name() == word || c.HasAlias(word) {
			return nil
		}
	}
	summary := ""
	if s := root.SuggestionsFor(word); len(s) > 0 {
		summary = "unknown command; did you mean " + s[0] + "? the commands are plan, sync, show and version"
	}
	return usage(diag.UsageUnknownCommand, summary)
}

// isUsage reports whether err is a usage diagnostic.
func isUsage(err error) bool {
	var ds diag.Diagnostics
	return errors.As(err, &ds) && len(ds) > 0 && diag.FamilyOf(ds[0].Class) == diag.FamilyUsage
}

// Execute runs the command line args with f and returns the exit code.
func Execute(ctx context.Context, f *factory.Factory, args []string) int {
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	// A mistyped command is found before cobra parses the root's flags, so
	// "plna --secret-prefix x" says "unknown command", not "unknown flag".
	word := commandWord(cmd, args)
	err := unknownCommand(cmd, word)
	earlyReport := err != nil
	if err == nil {
		err = cmd.ExecuteContext(ctx)
		if isUsage(err) {
			sub, _, ferr := cmd.Find(args)
			earlyReport = ferr == nil && command.IsReconcile(sub.Name())
		}
	}
	switch {
	case earlyReport:
		var ds diag.Diagnostics
		errors.As(err, &ds)
		err = command.EarlyFiles(f, args, ds)
	case err != nil && !isKnown(err):
		// cobra's own errors (e.g. from a subcommand lookup) may quote
		// arguments: replace them.
		err = usage(diag.UsageInvalid, "")
	}
	for _, line := range exitcode.Lines(err) {
		fmt.Fprintln(f.IOStreams.ErrOut, line)
	}
	return exitcode.For(err)
}

func isKnown(err error) bool {
	var re *exitcode.RunError
	var ds diag.Diagnostics
	return errors.As(err, &re) || errors.As(err, &ds)
}

// Main is the binary's entry point: SIGINT and SIGTERM cancel the run (the
// run then ends "interrupted", exit 130, report still written); a second
// signal gets the default behaviour and ends the process at once.
func Main(b factory.BuildInfo, args []string) int {
	paceGC()
	stopProfiles := startProfiles(os.Getenv)
	defer stopProfiles()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return Execute(ctx, factory.New(b), args)
}
