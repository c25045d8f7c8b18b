package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/reconcile"
)

// NewCmdVersion returns the version command.
func NewCmdVersion(f *factory.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version line",
		Args:  reconcile.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(f.IOStreams.Out, f.Build.Line())
			return err
		},
	}
}
