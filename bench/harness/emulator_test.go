package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Sub carries the SDK's retries, and Sent removes them from the calls: a
// no-op whose BatchGetSecretValue the SDK re-sent once is still exactly the
// algorithm's calls.
func TestDelta_SentRemovesSDKRetries(t *testing.T) {
	before := emulator.Stats{Calls: map[string]int64{"ListSecrets": 4, "BatchGetSecretValue": 20}, Retries: map[string]int64{"BatchGetSecretValue": 1}}
	after := emulator.Stats{Calls: map[string]int64{"ListSecrets": 6, "DescribeSecret": 200, "BatchGetSecretValue": 31}, Retries: map[string]int64{"BatchGetSecretValue": 2}}
	d := Sub(after, before)
	assert.Equal(t, Calls{"BatchGetSecretValue": 1}, d.Retries)
	assert.Equal(t, Calls{"ListSecrets": 2, "DescribeSecret": 200, "BatchGetSecretValue": 11}, d.Calls)
	assert.Equal(t, ExpectedCalls(Scenario{Kind: NoopSync, N: 200}), d.Sent())
}
