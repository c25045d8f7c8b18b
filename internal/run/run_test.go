package run

import (
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
