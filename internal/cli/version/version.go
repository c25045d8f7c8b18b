package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
)

// NewCmdVersion returns the version command. args is its positional-argument
// rule: the root passes the one plan and sync use (command.NoArgs), so that
// this package imports nothing from the commands beside it.
func NewCmdVersion(f *factory.Factory, args cobra.PositionalArgs) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version line",
		Args:  args,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(f.IOStreams.Out, f.Build.Line())
			return err
		},
	}
}
