package run

import (
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// lineWriter hands each written log line to a channel.
type lineWriter chan []byte

func (w lineWriter) Write(p []byte) (int, error) {
	w <- append([]byte(nil), p...)
	return len(p), nil
}

// tickClock is a clock whose After is a channel the test fires.
type tickClock struct {
	ticks chan time.Time
	asked *[]time.Duration
}

func (tickClock) Now() time.Time { return time.Time{} }

func (c tickClock) After(d time.Duration) <-chan time.Time {
	*c.asked = append(*c.asked, d)
	return c.ticks
}

// TestLoadingProgressOnTheRunClock (issue 15): while the desired state
// loads, a progress record (phase plan, documents done and selected) is
// logged each time the run's clock passes the progress interval, also
// when no document finishes meanwhile (a key service that does not
// answer); none after the load ends. The clock is a channel the test fires:
// no sleeping.
func TestLoadingProgressOnTheRunClock(t *testing.T) {
	var asked []time.Duration
	clock := tickClock{ticks: make(chan time.Time), asked: &asked}
	lines := make(lineWriter, 4)
	stop := reportLoading(clock, &desired.Progress{}, slog.New(slog.NewJSONHandler(lines, nil)))
	for range 2 {
		clock.ticks <- time.Time{}
		var rec map[string]any
		require.NoError(t, json.Unmarshal(<-lines, &rec))
		assert.Equal(t, "progress", rec["msg"])
		assert.Equal(t, vocab.PhasePlan, rec[vocab.FieldPhase])
		assert.Equal(t, float64(0), rec[vocab.FieldDone])
		assert.Equal(t, float64(0), rec[vocab.FieldTotal])
	}
	stop()
	assert.Empty(t, lines, "no record after the load ends")
	for _, d := range asked {
		assert.Equal(t, engine.DefaultProgressInterval, d)
	}
}

// TestScopeOf: a diagnostic whose setting is scopes.<name>.<key> is that
// scope's; with one scope, anything but the run's own is that scope's;
// otherwise it is the run's.
func TestScopeOf(t *testing.T) {
	names := []string{"prod", "staging"}
	role := diag.New(diag.CredentialsAssumeRole, diag.Subject{Setting: "scopes.staging.role-arn", Origin: diag.OriginFile})
	assert.Equal(t, "staging", ScopeOf(role, names))
	assert.Equal(t, "", ScopeOf(diag.New(diag.CredentialsAssumeRole, diag.Subject{Setting: "scopes.gone.role-arn"}), names))
	assert.Equal(t, "", ScopeOf(diag.New(diag.AWSConfig, diag.Subject{}), names), "several scopes: a run-wide problem is the run's")
	assert.Equal(t, "default", ScopeOf(diag.New(diag.AWSConfig, diag.Subject{}), []string{"default"}))
	assert.Equal(t, "", ScopeOf(diag.New(diag.InterruptedSignal, diag.Subject{}), []string{"default"}), "an interruption is the run's")
}

// skippable (SPEC §17): scopes may be skipped only when every set-up
// problem is a credentials:assume-role of a scope whose port is marked
// Unreachable, and there are at most --max-unreachable-scopes of them;
// max 0 is all or nothing, and any other problem stops the run.
func TestSkippable_OnlyUnreachableScopesWithinTheBound(t *testing.T) {
	scopes := []config.Scope{{Name: "a", Listed: true}, {Name: "b", Listed: true}, {Name: "c", Listed: true}}
	refused := func(name string) diag.Diagnostic {
		return diag.New(diag.CredentialsAssumeRole, diag.Subject{Setting: "scopes." + name + ".role-arn", Origin: diag.OriginFile})
	}
	ports := []ScopePort{{Name: "a"}, {Name: "b", Unreachable: true}, {Name: "c", Unreachable: true}}
	one := diag.Diagnostics{refused("b")}
	two := diag.Diagnostics{refused("b"), refused("c")}

	got := skippable(scopes, ports, one, 1)
	require.Len(t, got, 1)
	assert.Equal(t, diag.CredentialsScopeUnreachable, got[1].Class)
	assert.Equal(t, "scopes.b.role-arn", got[1].Subject.Setting)
	assert.Len(t, skippable(scopes, ports, two, 2), 2)

	assert.Nil(t, skippable(scopes, ports, one, 0), "max 0: all or nothing")
	assert.Nil(t, skippable(scopes, ports, two, 1), "more than max")
	assert.Nil(t, skippable(scopes, nil, one, 1), "no ports: the set-up failed otherwise")
	assert.Nil(t, skippable(scopes, ports, diag.Diagnostics{refused("a")}, 1), "a refused scope that is not unreachable")
	assert.Nil(t, skippable(scopes, ports, append(diag.Diagnostics{diag.New(diag.AWSConfig, diag.Subject{})}, one...), 1), "another problem")

	ds := tooManyUnreachable(ports, two, 1).(diag.Diagnostics)
	require.Len(t, ds, 3)
	assert.Equal(t, diag.CredentialsScopeUnreachable, ds[2].Class)
	assert.Contains(t, ds[2].Summary, "2 scopes could not be reached, more than --max-unreachable-scopes 1")
	assert.Equal(t, two, tooManyUnreachable(ports, two, 0), "max 0: the error as it was")
	assert.Equal(t, one, tooManyUnreachable(ports[:2], one, 1), "within max")
}
