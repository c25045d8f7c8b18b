package reconcile

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every class family has its own next action; unknown classes still get one.
func TestNextForDesired(t *testing.T) {
	seen := map[string]string{}
	for _, c := range []string{
		"decrypt:no-key", "decrypt:mac-mismatch", "decrypt:key-service", "decrypt:malformed",
		"plaintext:bom", "plaintext:duplicate-key", "name:collision", "source:missing-root",
		"source:too-large", "git:revision",
	} {
		n := NextForDesired(c)
		assert.NotEmpty(t, n, c)
		seen[c] = n
	}
	assert.NotEqual(t, seen["decrypt:no-key"], seen["decrypt:mac-mismatch"])
	assert.NotEqual(t, seen["plaintext:bom"], seen["plaintext:duplicate-key"])
	assert.NotEmpty(t, NextForDesired("something:new"))
}
