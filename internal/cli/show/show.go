// Package show is the `show PLAN_FILE` command: it renders a saved plan
// file (schema sops-aws-sync/plan/v3, or v2 or v1 from an older release, written
// by plan, sync or validate with --plan-file) as text or Markdown, one section per
// scope (a v1 file is one scope named default). It reads only that file:
// no configuration, no Git, no AWS, no credentials.
//
// Invariants:
//   - The file is read strictly (planview.ReadFile): another schema is
//     planfile:unknown-schema, a departure from its schema (a key twice or in
//     another letter case, invalid UTF-8 included) planfile:malformed, a
//     path that is not a regular file planfile:not-regular-file (a FIFO is
//     opened non-blocking, so show never waits on one), a file that cannot
//     be read planfile:unreadable; each exits 3 and never quotes the file
//     or its path.
//   - What is shown is exactly what the file holds, rendered by
//     planview.Text or planview.Markdown(Capped): the redaction was applied
//     when the file was written, and Parse refuses a file that breaks it
//     (names or key paths with names_shown false).
package show

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
)

// Formats of --format.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
)

// Options are show's parsed options, handed to runF in tests.
type Options struct {
	// Path is the plan file.
	Path string
	// Format is FormatText or FormatMarkdown.
	Format string
	// MaxBytes caps the Markdown (planview.MarkdownCapped: fewer than
	// MaxBytes bytes, at least 2,048); 0 = no cap.
	MaxBytes int
}

// NewCmdShow returns the show command. runF replaces the rendering in
// tests (it receives the validated Options); nil renders to f.IOStreams.Out.
func NewCmdShow(f *factory.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "show PLAN_FILE",
		Short: "Render a saved plan file (--plan-file) as text or Markdown",
		Long: "Render a plan file written by plan, sync or validate with --plan-file, for a terminal (text) or a job\n" +
			"summary or pull-request comment (markdown). Reads only the file: no Git, no AWS, no credentials.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage(diag.UsageStrayArgument, "show takes exactly one argument, the plan file ("+strconv.Itoa(len(args))+" given)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Path = args[0]
			switch {
			case o.Format != FormatText && o.Format != FormatMarkdown:
				return usage(diag.UsageBadFlag, "flag --format must be text or markdown")
			case o.MaxBytes < 0:
				return usage(diag.UsageBadFlag, "flag --max-bytes must be 0 (no cap) or more")
			case o.MaxBytes > 0 && o.Format != FormatMarkdown:
				return usage(diag.UsageBadFlag, "flag --max-bytes applies to --format markdown only")
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return Render(f.IOStreams.Out, o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Format, "format", FormatText, "text (terminal) or markdown (job summary, pull-request comment)")
	fs.IntVar(&o.MaxBytes, "max-bytes", 0, "markdown only: cut the rendering below this many bytes, at least 2048 (GitHub's comment limit is 65536); 0 = no cap")
	return cmd
}

// Render reads the plan file o.Path and writes its rendering to w. A plan
// file that cannot be read or is not a valid v3, v2 or v1 plan is a diag.Diagnostics
// of its planfile:* class (exit 3).
func Render(w io.Writer, o *Options) error {
	v, err := planview.ReadFile(o.Path)
	if err != nil {
		class, reason := diag.PlanfileUnreadable, ""
		var pe *planview.Error
		if errors.As(err, &pe) {
			class, reason = pe.Class, "the plan file cannot be shown: "+pe.Reason
		}
		return diag.Diagnostics{diag.New(class, diag.Subject{}).WithSummary(reason)}
	}
	var out string
	switch {
	case o.Format == FormatText:
		out = planview.Text(v)
	case o.MaxBytes > 0:
		out = planview.MarkdownCapped(v, o.MaxBytes)
	default:
		out = planview.Markdown(v)
	}
	_, err = io.WriteString(w, out)
	return err
}

func usage(class, summary string) error {
	return diag.Diagnostics{diag.New(class, diag.Subject{}).WithSummary(summary)}
}
