package logging

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Fields is the set of attribute keys a record may carry besides slog's own
// time, level and msg (SPEC §7.3, internal/vocab).
var Fields = map[string]bool{
	vocab.FieldPhase: true, vocab.FieldStatus: true, vocab.FieldOperation: true,
	vocab.FieldCount: true, vocab.FieldDurationMS: true, vocab.FieldResource: true,
	vocab.FieldConflictClass: true, vocab.FieldErrorCode: true, vocab.FieldFaultClass: true,
	vocab.FieldRequestID: true, vocab.FieldErrorClass: true, vocab.FieldVerification: true,
	vocab.FieldThrottled: true, vocab.FieldWaitMS: true, vocab.FieldDone: true, vocab.FieldTotal: true,
	vocab.FieldScope:      true,
	vocab.FieldRegion:     true,
	vocab.FieldIAMActions: true,
	vocab.FieldDeletion:   true,
}

// Vocab is a slog.Handler that forwards to an inner handler only the
// attributes allowed by Fields with scalar values; everything else is
// dropped and counted.
type Vocab struct {
	inner   slog.Handler
	dropped *atomic.Int64
	inGroup bool
}

var _ slog.Handler = (*Vocab)(nil)

// NewVocab wraps inner.
func NewVocab(inner slog.Handler) *Vocab {
	return &Vocab{inner: inner, dropped: new(atomic.Int64)}
}

// Dropped returns how many attributes were dropped so far.
func (h *Vocab) Dropped() int64 { return h.dropped.Load() }

// Enabled implements slog.Handler.
func (h *Vocab) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// Handle implements slog.Handler: it rebuilds the record with only the
// allowed attributes.
func (h *Vocab) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a2, ok := h.allow(a); ok {
			out.AddAttrs(a2)
		}
		return true
	})
	return h.inner.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (h *Vocab) WithAttrs(as []slog.Attr) slog.Handler {
	kept := make([]slog.Attr, 0, len(as))
	for _, a := range as {
		if a2, ok := h.allow(a); ok {
			kept = append(kept, a2)
		}
	}
	return &Vocab{inner: h.inner.WithAttrs(kept), dropped: h.dropped, inGroup: h.inGroup}
}

// WithGroup implements slog.Handler. Group names are not in the vocabulary,
// so every attribute added under a group is dropped.
func (h *Vocab) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &Vocab{inner: h.inner, dropped: h.dropped, inGroup: true}
}

func (h *Vocab) allow(a slog.Attr) (slog.Attr, bool) {
	if a.Equal(slog.Attr{}) {
		return a, false
	}
	v := a.Value.Resolve()
	if h.inGroup || !Fields[a.Key] {
		h.dropped.Add(1)
		return a, false
	}
	switch v.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindUint64, slog.KindFloat64, slog.KindBool, slog.KindDuration:
		return slog.Attr{Key: a.Key, Value: v}, true
	}
	h.dropped.Add(1)
	return a, false
}

// Options selects the output of New.
type Options struct {
	Level  string // debug, info, warn, error (default info)
	Format string // json or text (default json)
}

// ParseLevel maps a --log-level value to a slog.Level (default info).
func ParseLevel(s string) slog.Level {
	switch s {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// New returns a logger writing to w in the chosen format through the Vocab
// safety net, and the net itself (for its Dropped count).
func New(w io.Writer, o Options) (*slog.Logger, *Vocab) {
	ho := &slog.HandlerOptions{Level: ParseLevel(o.Level)}
	var inner slog.Handler
	if o.Format == "text" {
		inner = slog.NewTextHandler(w, ho)
	} else {
		inner = slog.NewJSONHandler(w, ho)
	}
	v := NewVocab(inner)
	return slog.New(v), v
}
