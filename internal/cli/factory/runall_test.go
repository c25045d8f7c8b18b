package factory

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// RunAll without RunScopes runs each scope through RunEngine with its
// whole desired state: a scope given an outline waits for its values
// (the engine never sees a secret without its value), and a scope whose
// values are rejected is not run at all.
func TestRunAll_OutlineWaitsForItsValuesWithoutRunScopes(t *testing.T) {
	whole := model.State{Secrets: []model.Secret{{Name: "app/a", Value: []byte(`{"k":"v"}`)}}}
	outline := model.State{Secrets: []model.Secret{{Name: "app/a"}}}
	var seen []model.State
	f := &Factory{RunEngine: func(_ context.Context, _ engine.Config, want model.State, _ engine.Port, _ *slog.Logger) engine.Result {
		seen = append(seen, want)
		return engine.Result{Status: vocab.StatusConverged}
	}}
	ok := engine.ValuesFunc(func(context.Context) (model.State, error) { return whole, nil })
	bad := engine.ValuesFunc(func(context.Context) (model.State, error) { return model.State{}, errors.New("rejected") })
	got := f.RunAll(context.Background(), []engine.ScopeRun{{Want: outline, Values: ok}, {Want: outline, Values: bad}}, nil)
	assert.Equal(t, []model.State{whole}, seen, "RunEngine got the whole state of the first scope and nothing of the second")
	assert.Equal(t, vocab.StatusConverged, got[0].Status)
	assert.Equal(t, vocab.StatusInvalid, got[1].Status)
}
