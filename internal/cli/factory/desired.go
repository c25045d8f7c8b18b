package factory

import (
	"context"
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// loadDesired adapts desired.Load to the Factory's shape: a *desired.Error
// becomes a *DesiredError (class, ordinal, path, and its log-safe text);
// context errors pass through so errors.Is still sees them.
func loadDesired(ctx context.Context, o config.Desired) (model.State, error) {
	st, err := desired.Load(ctx, o)
	if err == nil {
		return st, nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return model.State{}, err
	}
	var de *desired.Error
	if errors.As(err, &de) {
		return model.State{}, &DesiredError{Class: de.Class, Ordinal: de.Ordinal, Path: de.Path, Detail: de.Error()}
	}
	return model.State{}, &DesiredError{Class: "desired:internal"}
}
