package reconcile

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
)

// NoArgs rejects stray positional arguments (SPEC §2: exit 3) without
// quoting them: a stray argument is often a value that lost its flag.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &exitcode.UsageError{
			Class:   "usage:stray-argument",
			Message: cmd.CommandPath() + " takes no positional arguments (" + strconv.Itoa(len(args)) + " given); every option is a --flag",
		}
	}
	return nil
}
