package sync

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/reconcile"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
)

// SyncOptions are the parsed command line of `sync`.
type SyncOptions struct {
	Factory *factory.Factory
	// Flags holds the flags given explicitly, by name, with raw values.
	Flags map[string]string
}

// NewCmdSync returns the sync command. runF replaces the behaviour in tests;
// nil runs the reconciler in sync mode.
func NewCmdSync(f *factory.Factory, runF func(context.Context, *SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Make the owned scope equal to the committed documents, then verify",
		Long: "Observe the owned scope, plan the smallest safe change, apply it (restore, create, update,\n" +
			"schedule-delete) and re-observe until convergence is proven or the verification timeout passes.",
		Args: reconcile.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Flags = reconcile.GivenFlags(cmd.Flags())
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return reconcile.Run(cmd.Context(), f, reconcile.Request{Command: "sync", Mode: engine.ModeSync, Flags: opts.Flags})
		},
	}
	reconcile.AddFlags(cmd, false)
	return cmd
}
