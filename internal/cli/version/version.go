package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/command"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
)

// NewCmdVersion returns the version command.
func NewCmdVersion(f *factory.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version line",
		Args:  command.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(f.IOStreams.Out, f.Build.Line())
			return err
		},
	}
}
