// Package pace is the run's client-side rate control: one adaptive limit
// per quota family (writes, reads, batch reads, lists), shared by every
// worker of a run, that backs off when AWS throttles and recovers on
// success; the ceilings are Secrets Manager's (DefaultLimits) or Parameter
// Store's (ParameterStoreLimits).
//
// AWS's request quotas are per account and Region, shared with every other
// client there (other CI jobs, other scopes of this tool, applications), so
// the tool cannot know its share in advance. A throttled request was not
// executed (AWS API reference, "ThrottlingException"), so the caller resends
// it after its next turn, for every operation kind; only the run's own
// deadline ends the wait.
//
// The control law (AIMD on a token bucket, golang.org/x/time/rate):
//   - Wait hands out turns at the family's current limit (calls/s).
//   - Throttled cuts the limit to Backoff × min(limit, the accepted rate of
//     the last second), at most once per epoch: a throttle of a turn granted
//     before the last cut says nothing about the new limit.
//   - Succeeded raises the limit by Recovery calls/s per success when that
//     turn had to wait (demand exceeded the limit), so at a steady demand the
//     limit grows by about 10 % per second; it never rises above the
//     family's ceiling.
//
// Invariants: pure logic over an injected Clock (no sleeps of its own; tests
// drive a fake clock); safe for concurrent use; no I/O, no logging.
package pace
