package command

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
)

// Options are the resolved, typed options of one plan or sync, as RunE
// hands them to runF or to the run.
type Options struct {
	// Command is "plan", "sync", "validate" or "import".
	Command string
	// Mode is Command's engine mode.
	Mode engine.Mode
	// Config is every setting resolved (flag > environment > config file >
	// default) and validated by config.Resolve.
	Config config.Options
	// NoDecrypt is validate's --no-decrypt (validate only): the checks
	// that need no key only (SPEC §15).
	NoDecrypt bool
	// SourceRootsFile is validate's --source-roots-file ("" = none): where
	// validate writes each scope's resolved source root (SourceRoots).
	SourceRootsFile string
	// ReviewedPlan is plan's and sync's --reviewed-plan ("" = none): the
	// plan file that was reviewed, which the run must equal (SPEC §14).
	ReviewedPlan string
	// ChangesFile is sync's --changes-file ("" = none): where the
	// operations that took effect are listed (internal/changes).
	ChangesFile string
	// Import are import's own flags (nil for every other command).
	Import *ImportFlags
}

// spec is what differs between plan and sync.
type spec struct {
	name, short, long string
	mode              engine.Mode
}

var (
	planSpec = spec{
		name:  "plan",
		short: "Show what sync would change (read-only)",
		long: "Observe the owned scope in AWS Secrets Manager, compare it with the SOPS documents at one\n" +
			"commit and log the plan. Never writes to AWS. With --detailed-exit-code, exit 2 on drift.",
		mode: engine.ModePlan,
	}
	syncSpec = spec{
		name:  "sync",
		short: "Make the owned scope equal to the committed documents, then verify",
		long: "Observe the owned scope, plan the smallest safe change, apply it (restore, create, update,\n" +
			"schedule-delete) and re-observe until convergence is proven or the verification timeout passes.",
		mode: engine.ModeSync,
	}
)

// NewCmdPlan returns the plan command. runF replaces the run in tests: it
// receives the resolved Options (and is not called when they are invalid);
// nil runs the reconciler in plan mode.
func NewCmdPlan(f *factory.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	return newCmd(f, planSpec, runF)
}

// reviewedPlanFlag is plan's and sync's --reviewed-plan (SPEC §14). It is
// a flag of the two commands, not a setting (internal/config): the file a
// review approved is named by the job that applies it, never inherited
// from a variable or a config file that would bind every later run.
const reviewedPlanFlag = "reviewed-plan"

// changesFileFlag is sync's --changes-file (docs/results.md, the changes
// file). It is a flag of sync, not a setting: the file names secrets (an
// ARN holds the name), so only the command line of the job that consumes
// it asks for it, never a variable or a config file every job inherits.
const changesFileFlag = "changes-file"

// NewCmdSync returns the sync command; runF as for NewCmdPlan.
func NewCmdSync(f *factory.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	return newCmd(f, syncSpec, runF)
}

// NewCmdValidate returns the validate command (SPEC §15): every check
// that needs no AWS; runF as for NewCmdPlan.
func NewCmdValidate(f *factory.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	cmd := newCmd(f, validateSpec, runF)
	cmd.Flags().Bool(noDecryptFlag, false, "the structural checks only: decrypt nothing, read no key (validate only; a flag, never a variable or config key)")
	cmd.Flags().String(sourceRootsFlag, "", "write each scope's name and resolved source root to this JSON file (schema "+SourceRootsSchema+"; validate only; a flag, never a variable or config key)")
	return cmd
}

// IsReconcile reports whether name is plan or sync (the commands whose
// usage errors still write a report).
func IsReconcile(name string) bool {
	return name == planSpec.name || name == syncSpec.name || name == validateSpec.name || name == importSpec.name
}

func newCmd(f *factory.Factory, s spec, runF func(context.Context, *Options) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   s.name,
		Short: s.short,
		Long:  s.long,
		Args:  NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags, refused, ds := givenFlags(cmd.Flags())
			if len(ds) > 0 {
				return ds
			}
			start := f.Clock.Now()
			resolved, err := config.Resolve(config.Input{
				Command:      s.name,
				Flags:        flags,
				RefusedFlags: refused,
				Environ:      f.Host.Environ(),
				ReadFile:     f.Host.ReadFile,
			})
			changesFile, _ := cmd.Flags().GetString(changesFileFlag) // "" on plan and validate, which lack it
			if err != nil {
				return invalidConfig(f, start, resolved, changesFile, err)
			}
			opts := &Options{Command: s.name, Mode: s.mode, Config: resolved, ChangesFile: changesFile}
			switch s.name {
			case validateSpec.name:
				opts.NoDecrypt, _ = cmd.Flags().GetBool(noDecryptFlag)
				opts.SourceRootsFile, _ = cmd.Flags().GetString(sourceRootsFlag)
			case importSpec.name:
				opts.Import = importFlags(cmd)
			default:
				opts.ReviewedPlan, _ = cmd.Flags().GetString(reviewedPlanFlag)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			switch s.name {
			case validateSpec.name:
				return validate(cmd.Context(), f, opts, start)
			case importSpec.name:
				return runImport(cmd.Context(), f, opts, start)
			}
			return reconcile(cmd.Context(), f, opts, start)
		},
	}
	addFlags(cmd, s.mode == engine.ModePlan)
	if s.name != validateSpec.name && s.name != importSpec.name {
		if s.name == syncSpec.name {
			cmd.Flags().String(changesFileFlag, "", "write the changes file (JSON: every secret this sync changed, with its ARN, action and new version id, and each scope's state digest) to this path; it names secrets: keep it out of public logs (sync only; a flag, never a variable or config key)")
		}
		cmd.Flags().String(reviewedPlanFlag, "", "the plan file of the reviewed plan: apply exactly it or write nothing (sync), or say whether it is still what sync would do (plan); exit 3 plan:stale when the run differs (plan and sync only; a flag, never a variable or config key)")
	}
	return cmd
}

// NoArgs rejects stray positional arguments (SPEC §2: exit 3) without
// quoting them: a stray argument is often a value that lost its flag.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return diag.Diagnostics{diag.New(diag.UsageStrayArgument, diag.Subject{}).WithSummary(
			cmd.CommandPath() + " takes no positional arguments (" + strconv.Itoa(len(args)) + " given); every option is a --flag")}
	}
	return nil
}

// rawValue is a pflag.Value that only records the raw text and how often it
// was set: every value is parsed and validated by package config,
// uniformly for flags, environment and config file, so that no parse error
// can quote a value.
type rawValue struct {
	kind  config.Kind
	value string
	sets  int
	// lineBreak: one --tag value held a line break. The pairs are joined
	// by newlines, so it would silently become two tags; givenFlags
	// refuses it.
	lineBreak bool
}

func (v *rawValue) String() string { return v.value }
func (v *rawValue) Type() string   { return v.kind.TypeName() }

// Set records the raw text. KindTags (--tag) and KindList (--adopt) flags
// are the repeatable ones: each use adds a KEY=VALUE pair or a name,
// newline-joined (config.ParseTags, config.ParseList read them); any other
// flag given twice is reported by givenFlags.
func (v *rawValue) Set(s string) error {
	if v.repeatable() && strings.ContainsAny(s, "\r\n") {
		v.lineBreak = true
	}
	if v.repeatable() && v.sets > 0 {
		v.value += "\n" + s
	} else {
		v.value = s
	}
	v.sets++
	return nil
}

// repeatable reports whether the flag may be given more than once.
func (v *rawValue) repeatable() bool { return v.kind.Repeatable() }

// IsBoolFlag lets "--allow-empty" stand for "--allow-empty=true".
func (v *rawValue) IsBoolFlag() bool { return v.kind == config.KindBool }

// addFlags registers every setting of SPEC §2.1 on cmd (plan-only ones only
// when plan is set).
func addFlags(cmd *cobra.Command, plan bool) {
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
		fl := fs.VarPF(v, s.Name, "", usage)
		fl.DefValue = s.Default
		if s.Kind == config.KindBool {
			fl.NoOptDefVal = "true"
		}
	}
	fs.SortFlags = false
}

// givenFlags returns the flags set explicitly on the command line with their
// raw values, or one usage:repeated-flag diagnostic per flag given more than
// once (a repeated config-file key is an error too; the last one silently
// winning would hide a typo in a long CI command line). refused holds, with
// the reason, the flags whose raw text cannot be used: a --tag value holding
// a line break (one pair per flag; a tag cannot hold a line break, and the
// joined pairs would read it as two); config.Resolve reports them as
// config:invalid-value beside every other problem.
func givenFlags(fs *pflag.FlagSet) (out, refused map[string]string, ds diag.Diagnostics) {
	out, refused = map[string]string{}, map[string]string{}
	fs.Visit(func(f *pflag.Flag) {
		if _, ok := config.Lookup(f.Name); !ok {
			return
		}
		if v, ok := f.Value.(*rawValue); ok && v.sets > 1 && !v.repeatable() {
			ds = append(ds, diag.New(diag.UsageRepeatedFlag, diag.Subject{Setting: f.Name, Origin: diag.OriginFlag}).
				WithSummary("is given "+strconv.Itoa(v.sets)+" times; give it once"))
			return
		}
		if v, ok := f.Value.(*rawValue); ok && v.lineBreak {
			what := "one KEY=VALUE pair per --" + f.Name + " (a tag cannot hold a line break)"
			if v.kind == config.KindList {
				what = "one name per --" + f.Name + " (a secret name cannot hold a line break)"
			}
			refused[f.Name] = "a value holds a line break; give " + what
			return
		}
		out[f.Name] = f.Value.String()
	})
	return out, refused, ds
}
