package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func TestCheckAccounts_TheReachableConvergeAndExactlyTheUnreachableAreSkipped(t *testing.T) {
	sc := harness.Scenario{Kind: harness.AccountsUnreachable, N: 4 * 10, Accounts: harness.AccountsScenario{Accounts: 4, Unreachable: 1, Parallel: 2}}
	down := map[string]bool{"a002": true}
	scopes := map[string]vocab.Status{"a000": vocab.StatusConverged, "a001": vocab.StatusConverged, "a002": vocab.StatusUnreachable, "a003": vocab.StatusConverged}
	assert.Empty(t, checkAccounts(sc, 5, vocab.StatusUnreachable, 30, scopes, down, harness.Delta{}))
	assert.NotEmpty(t, checkAccounts(sc, 0, vocab.StatusConverged, 30, scopes, down, harness.Delta{}), "exit 0 with a scope skipped")
	assert.NotEmpty(t, checkAccounts(sc, 5, vocab.StatusUnreachable, 30, scopes, map[string]bool{"a001": true}, harness.Delta{}), "another scope skipped")
	assert.NotEmpty(t, checkAccounts(sc, 5, vocab.StatusUnreachable, 30, map[string]vocab.Status{"a000": vocab.StatusConverged, "a002": vocab.StatusUnreachable}, down, harness.Delta{}), "a scope left out")
	assert.NotEmpty(t, checkAccounts(sc, 5, vocab.StatusUnreachable, 30, scopes, down, harness.Delta{Calls: harness.Calls{"PutSecretValue": 1}}), "a write")

	noop := sc
	noop.Kind, noop.Accounts.Unreachable = harness.AccountsNoop, 0
	all := map[string]vocab.Status{"a000": vocab.StatusConverged, "a001": vocab.StatusConverged, "a002": vocab.StatusConverged, "a003": vocab.StatusConverged}
	assert.Empty(t, checkAccounts(noop, 0, vocab.StatusConverged, 40, all, nil, harness.Delta{}))
	assert.NotEmpty(t, checkAccounts(noop, 0, vocab.StatusConverged, 39, all, nil, harness.Delta{}), "a document not unchanged")
}

func TestAccountsFlags_ParallelScopesListAndDefaults(t *testing.T) {
	o, err := parseFlags([]string{"-root", "../../..", "-only", "accounts", "-accounts-parallel", "0,1,4,1"})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 4}, o.acc.parallel)
	assert.Equal(t, 200, o.acc.accounts)
	assert.Equal(t, 50, o.acc.per)
	assert.False(t, o.skip["accounts"])
	assert.True(t, o.skip["noop"])
	o, err = parseFlags([]string{"-root", "../../.."})
	require.NoError(t, err)
	assert.True(t, o.skip["accounts"], "only -only accounts runs the row group")
	_, err = parseFlags([]string{"-root", "../../..", "-accounts-unreachable", "200"})
	assert.Error(t, err)
	assert.Equal(t, []int{10, 30, 50, 70, 90, 110, 130, 150, 170, 190}, unreachableAccounts(200, 10))
}
