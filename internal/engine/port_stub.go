package engine

import (
	"context"
	"log/slog"

	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Port is the engine's view of AWS Secrets Manager. Placeholder until the
// engine lands (issue 4): the AWS adapter (internal/awssm) implements it.
type Port interface{}

// Run is a placeholder until the engine lands (issue 4).
func Run(ctx context.Context, cfg Config, want desired.State, sm Port, log *slog.Logger) Result {
	return Result{Status: vocab.StatusInvalid, Verification: vocab.VerificationNotRun}
}
