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
	// DefaultProgressInterval: a phase that runs longer than this logs a
	// progress record (done, total, throttled calls so far) this often, so a
	// long phase never looks hung.
	DefaultProgressInterval = 10 * time.Second
)
