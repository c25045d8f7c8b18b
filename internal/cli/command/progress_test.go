package command

import (
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// lineWriter hands each written log line to a channel.
type lineWriter chan []byte

func (w lineWriter) Write(p []byte) (int, error) {
	w <- append([]byte(nil), p...)
	return len(p), nil
}

// TestLoadingProgressOnTheFactoryClock (issue 15): while the desired state
// loads, a progress record (phase plan, documents done and selected) is
// logged each time the factory's clock passes the progress interval, also
// when no document finishes meanwhile (a key service that does not
// answer); none after the load ends. The clock is a channel the test fires:
// no sleeping.
func TestLoadingProgressOnTheFactoryClock(t *testing.T) {
	ticks := make(chan time.Time)
	var asked []time.Duration
	f := &factory.Factory{After: func(d time.Duration) <-chan time.Time { asked = append(asked, d); return ticks }}
	lines := make(lineWriter, 4)
	r := &invocation{f: f, log: slog.New(slog.NewJSONHandler(lines, nil))}
	stop := r.reportLoading(&desired.Progress{}, r.log)
	for range 2 {
		ticks <- time.Time{}
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
