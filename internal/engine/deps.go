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

// Defaults used when a Config field is zero.
const (
	// DefaultConcurrency: parallel AWS calls inside one phase (SPEC §2.1
	// says "tune by benchmark"): 32 measured fastest per call in flight on the
	// no-op and create benchmarks (docs/benchmarks.md), while 32 in-flight
	// describes at 20 ms stay near 16% of the shared 10,000/s read quota.
	DefaultConcurrency = 32
	// DefaultPollInterval: the fixed sub-second verification poll (SPEC §6).
	DefaultPollInterval = 250 * time.Millisecond
	// DefaultVerificationTimeout: --verification-timeout (SPEC §2.1).
	DefaultVerificationTimeout = 2 * time.Minute
	// DefaultWritesPerSecond paces mutations below AWS's 50/s write quotas
	// (CreateSecret, PutSecretValue, DeleteSecret, RestoreSecret), so a large
	// first sync never bounces off ThrottlingException; 48 keeps 2/s of each
	// quota for other users of the account (docs/benchmarks.md).
	DefaultWritesPerSecond = 48
)
