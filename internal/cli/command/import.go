package command

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/importer"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// import's own flags (SPEC §18). They are flags of the command, not
// settings (internal/config): they choose what one import writes, and no
// other command has them.
const (
	matchFlag       = "match"
	dryRunFlag      = "dry-run"
	rotatedKeyFlag  = "rotated-key"
	copyRotatedFlag = "copy-rotated-values"
)

// ImportFlags are import's own flags.
type ImportFlags struct {
	// Match are --match globs over names relative to the prefix.
	Match []string
	// DryRun is --dry-run: list and describe only.
	DryRun bool
	// RotatedKeys are --rotated-key: the keys of a rotation-enabled
	// secret that AWS owns (default /password).
	RotatedKeys []string
	// CopyRotated is --copy-rotated-values: those keys' values are
	// written into the document too.
	CopyRotated bool
}

var importSpec = spec{
	name:  "import",
	short: "Write a SOPS document for every unowned secret under the prefix and add it to adopt",
	long: "List the secrets (or parameters) under the scope's prefix that the tool does not own, read each\n" +
		"value and write it as one SOPS-encrypted document at the path its name maps to (encrypted by the\n" +
		"sops CLI under the .sops.yaml creation rule for that path), stage the documents and plan the staged\n" +
		"tree: every imported secret must plan adopt with value equal, else the documents are removed\n" +
		"(exit 3). For a laptop or a one-off job with read access; never the pull-request role.",
	mode: engine.ModePlan,
}

// NewCmdImport returns the import command (SPEC §18); runF as for
// NewCmdPlan.
func NewCmdImport(f *factory.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	cmd := newCmd(f, importSpec, runF)
	fs := cmd.Flags()
	fs.StringArray(matchFlag, nil, "import only the names (relative to the prefix) that match this glob (* within one segment); repeat for more (import only)")
	fs.Bool(dryRunFlag, false, "list and describe only: read no value, write nothing, log what would be written (import only)")
	fs.StringArray(rotatedKeyFlag, []string{"/password"}, "a key (RFC 6901 pointer) of a rotation-enabled secret that AWS owns: listed in its new aws-owned entry and left out of its document; repeat for more (import only)")
	fs.Bool(copyRotatedFlag, false, "write the values of the keys AWS owns into the documents too (import only)")
	return cmd
}

// importFlags reads import's own flags from cmd.
func importFlags(cmd *cobra.Command) *ImportFlags {
	fs := cmd.Flags()
	fl := &ImportFlags{}
	fl.Match, _ = fs.GetStringArray(matchFlag)
	fl.DryRun, _ = fs.GetBool(dryRunFlag)
	fl.RotatedKeys, _ = fs.GetStringArray(rotatedKeyFlag)
	fl.CopyRotated, _ = fs.GetBool(copyRotatedFlag)
	return fl
}

// runImport runs one import with resolved options, as reconcile runs a
// plan: the outputs resolved and probed, importer.Run over the factory's
// Sources with the sops CLI and the work tree's git, the ending (the plan
// of the written tree, or the stop before it) concluded and written.
func runImport(parent context.Context, f *factory.Factory, opts *Options, start time.Time) error {
	ctx, cancel := context.WithTimeoutCause(parent, opts.Config.Run.Timeout, errRunTimeout)
	defer cancel()
	req, outs := resolve(f, opts)
	outs.pointer = false
	got := run.Stopped(outs.probe())
	var res importer.Result
	if len(got.Run.Diagnostics) == 0 {
		res = importOnce(ctx, f, opts, req)
		got = res.Outcome
	}
	h := how{durationMS: since(f, start)}
	if ctx.Err() != nil {
		h.cause = context.Cause(ctx)
	}
	e := conclude(got, h)
	err := outs.write(e)
	if opts.Config.Output.ShowResourceNames && len(res.Adopt) > 0 && e.exitCode() == vocab.ExitOK {
		printEntries(f.IOStreams.ErrOut, res)
	}
	return err
}

// printEntries writes to w (stderr: stdout carries the log records) the
// configuration import's documents need (SPEC §18), as YAML to paste into
// the scope's entry: the adopt names, the new aws-owned entries and
// adopt-require-match: true (SPEC §11: a live value changed before the
// merge is then conflict adopt-mismatch, not overwritten by the commit's).
// It names secrets, so only a run with --show-resource-names prints it.
func printEntries(w io.Writer, res importer.Result) {
	type owned struct {
		Secret string   `yaml:"secret"`
		Keys   []string `yaml:"keys,flow"`
	}
	var doc struct {
		Adopt        []string `yaml:"adopt"`
		AWSOwned     []owned  `yaml:"aws-owned,omitempty"`
		RequireMatch bool     `yaml:"adopt-require-match"`
	}
	doc.Adopt, doc.RequireMatch = res.Adopt, true
	for _, e := range res.AWSOwned {
		doc.AWSOwned = append(doc.AWSOwned, owned{Secret: e.Secret, Keys: e.Keys})
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return
	}
	_, _ = io.WriteString(w, "# add to the scope's configuration (docs/migration.md):\n"+string(b))
}

// importOnce checks that one scope is selected, finds the sops CLI (not
// in a dry run) and the work tree, and runs the import.
func importOnce(ctx context.Context, f *factory.Factory, opts *Options, req run.Request) importer.Result {
	if len(opts.Config.Scopes) != 1 {
		return importer.Result{Outcome: logStop(req, diag.New(diag.ImportScope, diag.Subject{}))}
	}
	fl := opts.Import
	ir := importer.Request{Options: opts.Config, Match: fl.Match, DryRun: fl.DryRun, RotatedKeys: fl.RotatedKeys,
		CopyRotated: fl.CopyRotated, Log: req.Log, Clock: f.Clock}
	if !fl.DryRun {
		cli, err := importer.FindCLI(ctx)
		if err != nil {
			d := diag.New(diag.ImportSOPS, diag.Subject{})
			if errors.Is(err, importer.ErrOldSOPS) {
				d = d.WithSummary("the sops CLI on PATH is older than 3.10, which import needs to encrypt documents")
			}
			return importer.Result{Outcome: logStop(req, d)}
		}
		ir.Sops = cli
	}
	g, err := importer.OpenGit(ctx, opts.Config.Scopes[0].Desired.RepoPath)
	if err != nil {
		return importer.Result{Outcome: logStop(req, diag.New(diag.ImportGit, diag.Subject{}).WithSummary("the repository is not a Git work tree, or git is not on PATH"))}
	}
	ir.Git = g
	res := importer.Run(ctx, f.Sources, ir)
	if fl.DryRun || res.Outcome.Run.Status != "" || len(res.Adopt) == 0 || opts.Config.Run.ConfigFile == "" {
		return res
	}
	if d, ok := addToConfig(f, opts, res); !ok {
		req.Log.Error(d.Sentence(), d.Attrs()...)
		res.Outcome.Run.Status = vocab.StatusInvalid
		res.Outcome.Run.Diagnostics = append(res.Outcome.Run.Diagnostics, d)
		return res
	}
	req.Log.Info("config file updated", slog.String(vocab.FieldPhase, vocab.PhaseApply), slog.Int(vocab.FieldCount, len(res.Adopt)))
	return res
}

// addToConfig rewrites the --config file with the imported names in the
// scope's adopt, the new aws-owned entries and the scope's
// adopt-require-match set to true (config.AddEntries: its
// comments and order kept), replacing it whole (importer.ReplaceFile);
// false with import:config-file when it cannot.
func addToConfig(f *factory.Factory, opts *Options, res importer.Result) (diag.Diagnostic, bool) {
	sc := opts.Config.Scopes[0]
	path := opts.Config.Run.ConfigFile
	d := diag.New(diag.ImportConfigFile, diag.Subject{Origin: diag.OriginFile})
	raw, err := f.Host.ReadFile(path)
	if err != nil {
		return d, false
	}
	out, err := config.AddEntries(raw, sc.Name, sc.Listed, sc.Engine.Adopt, res.Adopt, sc.Engine.AWSOwned, res.AWSOwned, true)
	if err != nil {
		return d.WithSummary("the --config file could not be edited (" + err.Error() + "); the documents are written and staged"), false
	}
	if err := importer.ReplaceFile(path, out); err != nil {
		return d, false
	}
	return d, true
}

// logStop logs d and is the outcome of an import stopped by it.
func logStop(req run.Request, d diag.Diagnostic) run.Outcome {
	req.Log.Error(d.Sentence(), d.Attrs()...)
	return run.Stopped(diag.Diagnostics{d})
}
