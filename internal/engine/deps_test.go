package engine

import (
	"bytes"
	"testing"
	"time"
)

// blocks is a random source that hands out the given blocks in order and
// fails the test if it is read once more: generate must stop reading as
// soon as it has its n characters (a source that is read for ever would
// hang instead).
func blocks(t *testing.T, bs ...[]byte) func([]byte) (int, error) {
	t.Helper()
	return func(p []byte) (int, error) {
		if len(bs) == 0 {
			t.Fatalf("the random source was read again after the blocks the value needed")
		}
		n := copy(p, bs[0])
		bs = bs[1:]
		return n, nil
	}
}

// block is 64 bytes: the given ones, then fill.
func block(fill byte, first ...byte) []byte {
	b := bytes.Repeat([]byte{fill}, 64)
	copy(b, first)
	return b
}

// A generated value is read from the random bytes by rejection sampling:
// a byte below 248 (4 × 62) is the character of [A-Za-z0-9] at its value
// mod 62, bytes 248..255 are skipped (else 'A'..'H' would be likelier),
// and no more random bytes are read than the value needs.
func TestGenerate_RejectsBytesFrom248AndReadsNoMoreThanItNeeds(t *testing.T) {
	rejected := []byte{248, 249, 250, 251, 252, 253, 254, 255}
	cases := []struct {
		name   string
		n      int
		blocks [][]byte
		want   string
	}{
		{"bytes 248..255 skipped", 10,
			[][]byte{block(0, append(rejected, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)...)}, "BCDEFGHIJK"},
		{"mod 62, 247 the last kept", 6,
			[][]byte{block(0, 61, 62, 123, 124, 176, 247)}, "9A9A09"},
		{"a block of rejected bytes, then the next", 3,
			[][]byte{block(248), block(255, 25, 26, 51)}, "Zaz"},
		{"exactly one block's characters", 64,
			[][]byte{block(0, func() []byte {
				b := make([]byte, 64)
				for i := range b {
					b[i] = byte(i)
				}
				return b
			}()...)}, alphanumerics + "AB"},
		{"no characters, no read", 0, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := generate(c.n, blocks(t, c.blocks...)); got != c.want {
				t.Errorf("generate(%d) = %q, want %q", c.n, got, c.want)
			}
		})
	}
}

// The engine's defaults are the documented figures (Config's PollInterval
// and ProgressInterval when zero): the verification poll is 250 ms (SPEC
// §6: fixed and sub-second), a long phase reports its progress every 10 s.
// Other tests compare against the constants, so only this one sees them
// change.
func TestDefaults_AreTheDocumentedIntervals(t *testing.T) {
	if DefaultPollInterval != 250*time.Millisecond {
		t.Errorf("DefaultPollInterval = %v, want 250ms", DefaultPollInterval)
	}
	if DefaultProgressInterval != 10*time.Second {
		t.Errorf("DefaultProgressInterval = %v, want 10s", DefaultProgressInterval)
	}
}
