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

// Generator draws a value for a key owned by AWS that a create fills
// (aws-owned generate, SPEC §13): n characters of [A-Za-z0-9]. The value
// is only ever sent to AWS: never logged, never in any file.
type Generator interface {
	Generate(n int) string
}

// CryptoGenerator draws each character uniformly from the 62 of
// [A-Za-z0-9] with crypto/rand (rejection sampling: bytes ≥ 248 are
// drawn again, so no character is more likely than another).
type CryptoGenerator struct{}

// alphanumerics are the characters of a generated value.
const alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// Generate implements Generator.
func (CryptoGenerator) Generate(n int) string {
	return generate(n, rand.Read) // crypto/rand.Read never fails (Go ≥ 1.24)
}

// generate draws n characters of alphanumerics from the bytes read fills,
// 64 at a time, reading no more blocks than it needs: each byte below 248
// (4 × 62) is the character at its value mod 62, bytes 248..255 are
// skipped, and the bytes of the last block after the n-th character are
// unused. read's error is not looked at (crypto/rand.Read has none).
func generate(n int, read func([]byte) (int, error)) string {
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		_, _ = read(buf[:])
		for _, b := range buf {
			if b < 248 && len(out) < n { // 248 = 4 × 62
				out = append(out, alphanumerics[int(b)%len(alphanumerics)])
			}
		}
	}
	return string(out)
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
