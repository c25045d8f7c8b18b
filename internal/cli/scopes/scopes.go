// Package scopes is the `scopes` command and its subcommand `scopes
// generate --from-organizations` (SPEC §17): it reads the organization
// through AWS Organizations with the SDK chain's credentials (the read
// role), keeps the accounts --ou and --account-tag select, and writes a
// scopes config file (internal/scopegen) to --output, to be committed and
// reviewed like any change: discovery never adds a scope at sync time.
//
// Invariants:
//   - Flags, the template, the Regions and role names and the output
//     path are checked before any AWS call (usage:*, config:template,
//     report:scopes-write-failed; exit 3); nothing is written on any
//     failure.
//   - It only reads AWS (internal/awsorg: the List calls, paced and
//     resent while throttled); a failure is observe:organizations (exit
//     5) naming the call and its allow-listed error code, never AWS's
//     text.
//   - Accounts not ACTIVE are left out and named, one line each on
//     stderr and in the file's header; account ids are not printed.
//   - The same organization gives the same bytes (scopegen).
//   - --check writes nothing to --output: it compares that committed file
//     with the bytes the organization gives now (scopegen.Compare), writes
//     the diff to --diff-file (JSON) and --diff-markdown, prints it, and
//     exits 2 when they differ, 0 when not (the scheduled drift check of
//     SPEC §17).
package scopes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/awsorg"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/scopegen"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// GenerateOptions are scopes generate's parsed options.
type GenerateOptions struct {
	FromOrganizations bool
	OUs               []string // --ou, repeatable: an OU id or a path of OU names
	AccountTags       []string // --account-tag K=V, repeatable
	Regions           []string // --regions R,…
	RoleName          string
	PlanRoleName      string
	Template          string // --template FILE ("" for the default template)
	Output            string
	// OrganizationsRole is --organizations-role-arn: the read role assumed
	// from the SDK chain's credentials ("" reads with those credentials).
	OrganizationsRole string
	// Check is --check: Output is the committed file, compared and never
	// written; DiffFile and DiffMarkdown receive the diff ("" for none).
	Check                  bool
	DiffFile, DiffMarkdown string
}

// callTimeout bounds each Organizations call, the SDK's retries included.
const callTimeout = 30 * time.Second

var scopesFile = wirefile.File{Temp: ".sops-aws-sync-scopes-*.tmp", MaxBytes: 1 << 20}

// NewCmdScopes returns the scopes command with generate. runF replaces
// the generation in tests (it receives the checked options); nil runs it.
func NewCmdScopes(f *factory.Factory, runF func(context.Context, *GenerateOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scopes <command>",
		Short: "Write the scopes config of many accounts (scopes generate --from-organizations)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usage(diag.UsageUnknownCommand, "scopes has one command: generate")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdGenerate(f, runF))
	return cmd
}

func newCmdGenerate(f *factory.Factory, runF func(context.Context, *GenerateOptions) error) *cobra.Command {
	o := &GenerateOptions{}
	cmd := &cobra.Command{
		Use:   "generate --from-organizations --role-name NAME --output FILE",
		Short: "List the organization's accounts and write one scope per ACTIVE account and Region",
		Long: "Reads the accounts, OU paths, statuses and tags of the organization through AWS Organizations\n" +
			"(the SDK chain's credentials: the management account's or a delegated administrator's), keeps\n" +
			"those --ou and --account-tag select, and writes a scopes config file: one scope per ACTIVE\n" +
			"account and Region. Accounts not ACTIVE are left out and listed. See docs/many-accounts.md.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usage(diag.UsageStrayArgument, "scopes generate takes no argument")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case !o.FromOrganizations:
				return usage(diag.UsageBadFlag, "scopes generate needs --from-organizations (the one source it reads)")
			case o.RoleName == "":
				return usage(diag.UsageBadFlag, "scopes generate needs --role-name, the role sync assumes in each account")
			case o.Output == "":
				return usage(diag.UsageBadFlag, "scopes generate needs --output FILE")
			case !o.Check && (o.DiffFile != "" || o.DiffMarkdown != ""):
				return usage(diag.UsageBadFlag, "--diff-file and --diff-markdown go with --check")
			case o.OrganizationsRole != "" && model.ValidateRoleARN(o.OrganizationsRole) != nil:
				return usage(diag.UsageBadFlag, "flag --organizations-role-arn must be an IAM role ARN, arn:<partition>:iam::<account>:role/[<path>/]<name>")
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return Generate(cmd.Context(), f, o)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&o.FromOrganizations, "from-organizations", false, "read the accounts from AWS Organizations (required)")
	fs.StringArrayVar(&o.OUs, "ou", nil, "keep the accounts under this OU (an id ou-… or r-…, or a path of OU names from the root such as platform/prod); repeatable: any of them")
	fs.StringArrayVar(&o.AccountTags, "account-tag", nil, "keep the accounts with this tag, K=V; repeatable: all of them")
	fs.StringSliceVar(&o.Regions, "regions", nil, "Regions of every account's scopes, R[,R…] (default: the template's regions)")
	fs.StringVar(&o.RoleName, "role-name", "", "role that sync assumes in each account, [<path>/]<name> (role-arn of each scope; required)")
	fs.StringVar(&o.PlanRoleName, "plan-role-name", "", "role that plan assumes in each account (plan-role-arn of each scope)")
	fs.StringVar(&o.Template, "template", "", "YAML template: name, source-root, secret-prefix, regions, defaults (docs/many-accounts.md)")
	fs.StringVar(&o.Output, "output", "", "the scopes config file to write (required; with --check, the committed file to compare)")
	fs.StringVar(&o.OrganizationsRole, "organizations-role-arn", "", "read role assumed (STS AssumeRole from the SDK chain's credentials) to list the organization")
	fs.BoolVar(&o.Check, "check", false, "compare --output with what the organization gives now instead of writing it: exit 0 when equal, 2 when it differs")
	fs.StringVar(&o.DiffFile, "diff-file", "", "with --check, write the difference as JSON (schema sops-aws-sync/scopes-diff/v1)")
	fs.StringVar(&o.DiffMarkdown, "diff-markdown", "", "with --check, write the difference as a Markdown section (the drift issue's)")
	return cmd
}

// Generate runs scopes generate with o: the checks, the organization
// read, the file written; the left-out accounts and a summary on stderr.
func Generate(ctx context.Context, f *factory.Factory, o *GenerateOptions) error {
	req, err := request(f, o)
	if err != nil {
		return err
	}
	var committed []byte
	if o.Check {
		if committed, err = f.Host.ReadFile(o.Output); err != nil {
			return diag.Diagnostics{diag.New(diag.ConfigScopesFile, diag.Subject{}).
				WithSummary("the committed scopes file (--output) cannot be read")}
		}
		for _, p := range []string{o.DiffFile, o.DiffMarkdown} {
			if p == "" {
				continue
			}
			if err := diffFile.Probe(p); err != nil {
				return diffFailure(err)
			}
		}
	} else if err := scopesFile.Probe(o.Output); err != nil {
		return writeFailure(err)
	}
	client, err := factory.NewOrganizations(ctx, factory.TrailOf(f.Host.Environ(), f.Build.Version), o.OrganizationsRole, callTimeout)
	if err != nil {
		return err
	}
	r := awsorg.Reader{API: client, Calls: awscore.Calls{Timeout: callTimeout,
		Pace: pace.New(pace.SystemClock{}, pace.LimitsOf("organizations")), Codes: awsorg.Codes}}
	org, err := r.Read(ctx, req.OUs, len(req.Tags) > 0)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return readFailure(err)
	}
	out, err := scopegen.Generate(org, req)
	if err != nil {
		return err
	}
	if o.Check {
		return check(f, o, committed, org, req, out)
	}
	if err := scopesFile.Write(o.Output, out.Bytes); err != nil {
		return writeFailure(err)
	}
	report(f.IOStreams.ErrOut, out)
	return nil
}

// request checks o and the template into a scopegen.Request, before any
// AWS call.
func request(f *factory.Factory, o *GenerateOptions) (scopegen.Request, error) {
	tmpl := scopegen.DefaultTemplate()
	if o.Template != "" {
		b, err := f.Host.ReadFile(o.Template)
		if err != nil {
			return scopegen.Request{}, diag.Diagnostics{diag.New(diag.ConfigTemplate, diag.Subject{}).
				WithSummary("the scopes template (--template) cannot be read")}
		}
		if tmpl, err = scopegen.ParseTemplate(b); err != nil {
			return scopegen.Request{}, err
		}
	}
	req := scopegen.Request{Template: tmpl, Regions: tmpl.Regions, RoleName: o.RoleName, PlanRoleName: o.PlanRoleName, OUs: o.OUs}
	if len(o.Regions) > 0 {
		req.Regions = o.Regions
	}
	for _, kv := range o.AccountTags {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return scopegen.Request{}, usage(diag.UsageBadFlag, "flag --account-tag must be KEY=VALUE")
		}
		if req.Tags == nil {
			req.Tags = map[string]string{}
		}
		req.Tags[k] = v
	}
	return req, scopegen.Check(req)
}

var diffFile = wirefile.File{Temp: ".sops-aws-sync-scopes-diff-*.tmp", MaxBytes: 4 << 20}

// check is scopes generate --check: the committed bytes compared with
// out (scopegen.Compare), the diff's files written, its lines on stdout;
// a diff is exit 2 (the drift of plan --detailed-exit-code), none exit 0.
func check(f *factory.Factory, o *GenerateOptions, committed []byte, org scopegen.Org, req scopegen.Request, out scopegen.Output) error {
	d, err := scopegen.Compare(committed, org, req, out)
	if err != nil {
		return err
	}
	for _, w := range []struct {
		path string
		b    []byte
	}{{o.DiffFile, d.JSON()}, {o.DiffMarkdown, []byte(d.Markdown(o.Output))}} {
		if w.path == "" {
			continue
		}
		if err := diffFile.Write(w.path, w.b); err != nil {
			return diffFailure(err)
		}
	}
	for _, l := range d.Lines(o.Output) {
		fmt.Fprintln(f.IOStreams.Out, l)
	}
	if d.Differs {
		return &exitcode.RunError{Status: vocab.StatusDrift, Detailed: true}
	}
	return nil
}

func diffFailure(err error) error {
	return diag.Diagnostics{diag.New(diag.ReportScopesWriteFailed, diag.Subject{}).
		WithSummary("the scopes diff (--diff-file or --diff-markdown) could not be written (step " + wirefile.StepOf(err) + ")")}
}

func readFailure(err error) error {
	d := diag.New(diag.ObserveOrganizations, diag.Subject{})
	var e *engine.Error
	if errors.As(err, &e) {
		d = d.WithSummary(fmt.Sprintf("the organization could not be listed through AWS Organizations: %s answered %s", e.Operation, e.Code))
	}
	return diag.Diagnostics{d}
}

func writeFailure(err error) error {
	return diag.Diagnostics{diag.New(diag.ReportScopesWriteFailed, diag.Subject{}).
		WithSummary("the scopes file (--output) could not be written (step " + wirefile.StepOf(err) + ")")}
}

// report writes one line per left-out account and the summary: names,
// statuses and OU paths, never account ids.
func report(w io.Writer, out scopegen.Output) {
	for _, a := range out.LeftOut {
		where := "the root"
		if a.Path != "" {
			where = "OU " + a.Path
		}
		fmt.Fprintf(w, "scopes generate: left out account %q (%s, in %s): not ACTIVE\n", a.Name, a.Status, where)
	}
	fmt.Fprintf(w, "scopes generate: %d scopes written; %d accounts left out\n", out.Scopes, len(out.LeftOut))
}

func usage(class, summary string) error {
	return diag.Diagnostics{diag.New(class, diag.Subject{}).WithSummary(summary)}
}
