package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAccountsBound_KnownFigures(t *testing.T) {
	m := Model{Latency: 20 * time.Millisecond, STSLatency: 20 * time.Millisecond}
	noop := func(p, u int) Scenario {
		return Scenario{Kind: AccountsNoop, N: 200 * 50, Concurrency: 28, Accounts: AccountsScenario{Accounts: 200, Unreachable: u, Parallel: p}}
	}
	// obs(50) at C = 28: ⌈(50 + 3 + 1)/28⌉ = 2 rounds of L = 40 ms; a
	// wave is Ls + obs(50) = 60 ms.
	b, f := m.LowerBound(noop(8, 0))
	assert.InDelta(t, 25*0.06, b.Seconds(), 1e-9, "⌈200/8⌉ = 25 waves")
	assert.Equal(t, "⌈(A − U)/P⌉·(Lₛ + obs(n))", f)
	b, _ = m.LowerBound(noop(1, 0))
	assert.InDelta(t, 200*0.06, b.Seconds(), 1e-9)
	u := noop(8, 10)
	u.Kind = AccountsUnreachable
	b, _ = m.LowerBound(u)
	assert.InDelta(t, 24*0.06, b.Seconds(), 1e-9, "⌈190/8⌉ = 24 waves")
	// The tool's algorithm: every role first, at most 8 at once, paced at
	// 100/s with a burst of 12: max(25·Ls, (200 − 12)/100 s + Ls) = 1.90 s,
	// then 25·obs(50) = 1.0 s.
	assert.InDelta(t, 1.90+25*0.04, m.PacedSTS(noop(8, 0)).Seconds(), 1e-9)
	assert.InDelta(t, 200*0.02+200*0.04, m.PacedSTS(noop(1, 0)).Seconds(), 1e-9, "P = 1: the latency of 200 calls in turn binds")
}

func TestAccountsExpected_OneAssumeRolePerRoleAndTheReachableObservations(t *testing.T) {
	s := Scenario{Kind: AccountsUnreachable, N: 200 * 50, Concurrency: 28, Accounts: AccountsScenario{Accounts: 200, Unreachable: 10, Parallel: 8}}
	assert.Equal(t, Calls{"AssumeRole": 200, "ListSecrets": 190, "DescribeSecret": 9500, "BatchGetSecretValue": 570}, ExpectedCalls(s))
}

func TestOrgGenerateMinimum_FiveHundredAccountsInTwentyOUs(t *testing.T) {
	// The figure internal/awsorg's TestRead_FiveHundredAccountsInTwentyOUs_PageCountMinimum measures:
	// 1 ListRoots + 21 unit pages + (1 + 20 × 2) account pages = 63.
	c := OrgGenerateMinimum(OrgShape{Accounts: 500, OUs: 20})
	assert.Equal(t, int64(63), c.Total())
	assert.Equal(t, int64(41), c["organizations:ListAccountsForParent"])
	b, f := Model{Latency: 20 * time.Millisecond}.LowerBound(Scenario{Kind: OrgGenerate, N: 500, Accounts: AccountsScenario{OUs: 20}})
	assert.InDelta(t, 5.3+0.02, b.Seconds(), 1e-9, "(63 − 10)/10 s + L")
	assert.Equal(t, "(k − 10)/10 s + L", f)
	assert.Equal(t, int64(1+6+(1+5)), OrgGenerateMinimum(OrgShape{Accounts: 50, OUs: 5}).Total(), "10 accounts per OU: one page each")
}

func TestJudgeAccounts_EveryConditionOfTheTarget(t *testing.T) {
	s := Scenario{Kind: AccountsNoop, N: 200 * 50, Concurrency: 28, Accounts: AccountsScenario{Accounts: 200, Parallel: 8}}
	row := func(wall float64, rss int64, assumes int64) *Row {
		return &Row{Scenario: s, Wall: secs(wall), Bound: secs(1.5), MaxRSSKiB: rss * 1024, Status: "converged",
			Delta: Delta{Calls: Calls{"AssumeRole": assumes}}}
	}
	for _, c := range []struct {
		r    *Row
		pass bool
	}{
		{row(1.8, 200, 200), true},
		{row(1.81, 200, 200), false}, // 1.2 × 1.5 s = 1.8 s
		{row(1.8, 301, 200), false},
		{row(1.8, 200, 201), false},
	} {
		v := JudgeAccounts([]*Row{c.r})
		assert.Len(t, v, 1)
		assert.True(t, v[0].Known)
		assert.Equal(t, c.pass, v[0].Pass, v[0].Detail)
	}
	bad := row(1.0, 100, 200)
	bad.Problems = []string{"exit 5, want 0"}
	assert.False(t, JudgeAccounts([]*Row{bad})[0].Pass)
}
