package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

type secretValuer struct{}

func (secretValuer) LogValue() slog.Value { return slog.StringValue("CANARY-valuer") }

func TestVocabDropsUnknownKeysGroupsAndNonScalars(t *testing.T) {
	var buf bytes.Buffer
	log, h := New(&buf, Options{Level: "debug"})
	log = log.With(slog.String("name", "CANARY-with"), slog.String(vocab.FieldPhase, vocab.PhasePlan))
	log.Info("planned",
		slog.Int(vocab.FieldCount, 3),
		slog.String("secret_name", "CANARY-name"),
		slog.Any("err", errors.New("CANARY-error-text")),
		slog.Any(vocab.FieldErrorCode, errors.New("CANARY-error-as-code")),
		slog.Group("g", slog.String(vocab.FieldStatus, "CANARY-group")),
		slog.Duration(vocab.FieldDurationMS, time.Second),
		slog.Any(vocab.FieldStatus, secretValuer{}), // resolved → string, allowed key
	)
	log.WithGroup("aws").Info("x", slog.String(vocab.FieldRequestID, "CANARY-in-group"))

	out := buf.String()
	for _, c := range []string{"CANARY-with", "CANARY-name", "CANARY-error-text", "CANARY-error-as-code", "CANARY-group", "CANARY-in-group"} {
		assert.NotContains(t, out, c)
	}
	assert.Equal(t, int64(6), h.Dropped())

	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &rec))
	for k := range rec {
		assert.True(t, Fields[k] || k == "time" || k == "level" || k == "msg", "unexpected key %q", k)
	}
	assert.Equal(t, "plan", rec["phase"])
	assert.Equal(t, float64(3), rec["count"])
}

func TestLevelsAndTextFormat(t *testing.T) {
	var buf bytes.Buffer
	log, _ := New(&buf, Options{Level: "warn", Format: "text"})
	log.Info("hidden")
	log.Warn("shown", slog.String(vocab.FieldPhase, "apply"))
	assert.NotContains(t, buf.String(), "hidden")
	assert.Contains(t, buf.String(), "phase=apply")
	assert.Equal(t, slog.LevelDebug, ParseLevel("debug"))
	assert.Equal(t, slog.LevelError, ParseLevel("error"))
	assert.Equal(t, slog.LevelInfo, ParseLevel("bogus"))
}

// Every vocabulary key of internal/vocab is allowed (the vocabulary golden
// test there pins the key strings).
func TestFieldsMatchVocab(t *testing.T) {
	assert.Len(t, Fields, 20)
}
