package harness

import (
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// The emulator process and its control API client are
// emulatortest.StartProcess and emulatortest.Control; this file reads the
// counters they return.

// Calls is a per-operation call count.
type Calls map[string]int64

// Total is the sum over operations.
func (c Calls) Total() int64 {
	var t int64
	for _, n := range c {
		t += n
	}
	return t
}

// Delta is what happened between two stats snapshots.
type Delta struct {
	Calls     Calls // every request received, throttled ones and retries included
	Retries   Calls // of Calls, the SDK's own retries of a call (Amz-Sdk-Request attempt >= 2)
	Throttled Calls // requests answered ThrottlingException by the quota buckets
	Faults    Calls // injected faults by kind (latency counts every delayed call)
	// Connections is the number of TCP connections the client opened.
	Connections int64
}

// Sub returns after − before per operation, dropping zeros.
func Sub(after, before emulator.Stats) Delta {
	sub := func(a, b map[string]int64) Calls {
		out := Calls{}
		for k, v := range a {
			if d := v - b[k]; d != 0 {
				out[k] = d
			}
		}
		return out
	}
	return Delta{Calls: sub(after.Calls, before.Calls), Retries: sub(after.Retries, before.Retries), Throttled: sub(after.Throttled, before.Throttled), Faults: sub(after.Faults, before.Faults),
		Connections: after.Connections - before.Connections}
}

// Sent is the calls the tool made: Calls without the SDK's own retries
// (Retries), the count the exact call budgets of ExpectedCalls are about.
// A retry is the SDK re-sending one call after a transport error, a 5xx or
// a throttle it judged retryable; a call the tool re-sends itself (after a
// throttle, internal/awssm) is a new call and stays in Sent.
func (d Delta) Sent() Calls {
	out := Calls{}
	for k, v := range d.Calls {
		if n := v - d.Retries[k]; n != 0 {
			out[k] = n
		}
	}
	return out
}

// Mutations sums the mutating operations in c.
func (c Calls) Mutations() int64 {
	var t int64
	for _, op := range []string{"CreateSecret", "PutSecretValue", "UpdateSecret", "DeleteSecret", "RestoreSecret", "TagResource", "UntagResource", "UpdateSecretVersionStage",
		// Parameter Store's (SPEC §16).
		"PutParameter", "DeleteParameter", "DeleteParameters", "AddTagsToResource", "RemoveTagsFromResource", "LabelParameterVersion", "UnlabelParameterVersion"} {
		t += c[op]
	}
	return t
}
