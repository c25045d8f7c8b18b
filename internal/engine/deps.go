package engine

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// TokenSource mints ClientRequestTokens (SPEC §6): one fresh value per
// logical write, 32..64 characters, never reused across runs.
type TokenSource interface {
	NewToken() string
}

// Clock is the engine's view of time: verification deadlines and polling.
type Clock interface {
	Now() time.Time
	// After is time.After: a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// CryptoTokens mints 64 lower-hex characters (256 bits) from crypto/rand.
type CryptoTokens struct{}

// NewToken implements TokenSource.
func (CryptoTokens) NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now implements Clock.
func (SystemClock) Now() time.Time { return time.Now() }

// After implements Clock.
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Defaults of the engine-only Config knobs (not settings), used when a
// field is zero.
const (
	// DefaultPollInterval: the fixed sub-second verification poll (SPEC §6).
	DefaultPollInterval = 250 * time.Millisecond
	// DefaultWritesPerSecond paces mutations below AWS's 50/s write quotas
	// (CreateSecret, PutSecretValue, DeleteSecret, RestoreSecret), so a large
	// first sync never bounces off ThrottlingException; 48 keeps 2/s of each
	// quota for other users of the account (docs/benchmarks.md).
	DefaultWritesPerSecond = 48
	// DefaultBatchReadsPerSecond paces value batches (BatchGetSecretValue)
	// below AWS's 100/s quota, with a burst of one eighth of a second's
	// worth (10). Without it, --concurrency 64 at 20 ms per call offered
	// about 150 batches/s and 9 of 509 were throttled in a no-op sync of
	// 10,000 secrets (docs/benchmarks.md); at the default concurrency about
	// 60/s are offered and the pace does not bind. 80 keeps a fifth of the
	// account's quota for its applications.
	DefaultBatchReadsPerSecond = 80
)
