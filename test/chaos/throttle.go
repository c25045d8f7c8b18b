package chaos

import (
	"bytes"
	"encoding/json"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Field names of the CLI's JSON log records that carry its throttling
// figures: a phase's summary record has "throttled" (calls AWS throttled and the tool
// resent) and "wait_ms" (time its calls waited for their turn of the pace,
// summed over workers); progress records carry the running totals with
// "done", so they are not summed again.
const (
	logThrottled = vocab.FieldThrottled
	logWaitMS    = vocab.FieldWaitMS
	logDone      = vocab.FieldDone
)

// Throttling is what a run's log says about throttling.
type Throttling struct {
	Throttled, WaitMS int64
}

// cliThrottling sums the throttling figures of the phase records in a
// run's stdout (one JSON record a line); ok is false when no record has
// them (a CLI that does not log them yet, or a run killed early).
func cliThrottling(stdout []byte) (t Throttling, ok bool) {
	for _, line := range bytes.Split(stdout, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec map[string]json.RawMessage
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		if _, progress := rec[logDone]; progress {
			continue
		}
		th, okT := intField(rec, logThrottled)
		w, okW := intField(rec, logWaitMS)
		if okT || okW {
			ok = true
			t.Throttled += th
			t.WaitMS += w
		}
	}
	return t, ok
}

func intField(rec map[string]json.RawMessage, k string) (int64, bool) {
	raw, ok := rec[k]
	if !ok {
		return 0, false
	}
	var n int64
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}
