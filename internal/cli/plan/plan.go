package plan

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/reconcile"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
)

// PlanOptions are the parsed command line of `plan`.
type PlanOptions struct {
	Factory *factory.Factory
	// Flags holds the flags given explicitly, by name, with raw values;
	// package config resolves and validates them with env and file.
	Flags map[string]string
}

// NewCmdPlan returns the plan command. runF replaces the behaviour in tests;
// nil runs the reconciler in plan mode.
func NewCmdPlan(f *factory.Factory, runF func(context.Context, *PlanOptions) error) *cobra.Command {
	opts := &PlanOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Show what sync would change (read-only)",
		Long: "Observe the owned scope in AWS Secrets Manager, compare it with the SOPS documents at one\n" +
			"commit and log the plan. Never writes to AWS. With --detailed-exit-code, exit 2 on drift.",
		Args: reconcile.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Flags = reconcile.GivenFlags(cmd.Flags())
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return reconcile.Run(cmd.Context(), f, reconcile.Request{Command: "plan", Mode: engine.ModePlan, Flags: opts.Flags})
		},
	}
	reconcile.AddFlags(cmd, true)
	return cmd
}
