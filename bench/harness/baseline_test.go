package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitRepo makes a git repository holding a tiny module whose
// ./cmd/sops-aws-sync builds at the first commit and does not at the
// second; it returns the repository and the first commit.
func gitRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	git("init", "-q")
	write("go.mod", "module example.invalid/baseline\n\ngo 1.22\n")
	write("cmd/sops-aws-sync/main.go", "package main\n\nfunc main() {}\n")
	git("add", ".")
	git("commit", "-q", "-m", "builds")
	first := git("rev-parse", "HEAD")
	write("cmd/sops-aws-sync/main.go", "package main\n\nfunc main() { undefinedName() }\n")
	git("commit", "-q", "-am", "does not build")
	return dir, first
}

func TestBuildBaseline_BuildsTheRevisionNotTheWorkTree(t *testing.T) {
	root, first := gitRepo(t)
	b := BuildBaseline(root, "HEAD~1", t.TempDir())
	require.Empty(t, b.Err)
	assert.Equal(t, first[:12], b.Commit)
	fi, err := os.Stat(b.CLI)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&0o111, "the built CLI is executable")
	assert.Equal(t, "baseline HEAD~1 ("+first[:12]+")", b.Label())
	assert.Equal(t, "baseline "+first[:7], BuildBaseline(root, first[:7], t.TempDir()).Label())
	// The work tree and the worktree list are left alone.
	st, err := exec.Command("git", "-C", root, "status", "--porcelain").Output()
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(string(st)))
}

func TestBuildBaseline_FailureIsReportedNotFatal(t *testing.T) {
	root, _ := gitRepo(t)
	b := BuildBaseline(root, "HEAD", t.TempDir())
	assert.Empty(t, b.CLI)
	assert.Contains(t, b.Err, "go build ./cmd/sops-aws-sync")
	assert.Contains(t, b.Err, "undefinedName")
	assert.LessOrEqual(t, len(b.Err), 402+len(" …"))

	b = BuildBaseline(root, "no-such-revision", t.TempDir())
	assert.Empty(t, b.CLI)
	assert.Contains(t, b.Err, "no-such-revision names no commit")
	assert.Contains(t, BuildBaseline(root, "", t.TempDir()).Err, "no revision")
}

func noopRow(n int, wall, cpu float64) *Row {
	r := row(NoopSync, n, 28, secs(wall), secs(7.58), Calls{"DescribeSecret": int64(n)})
	r.CPU = secs(cpu)
	return r
}

func TestJudge_BeforeAfterCPU(t *testing.T) {
	find := func(vs []Verdict) Verdict {
		for _, v := range vs {
			if strings.Contains(v.Target, "before/after") {
				return v
			}
		}
		return Verdict{Target: "none"}
	}
	base := Baseline{Rev: "4886998", Commit: "4886998abcde", CLI: "/x"}
	ba := &BeforeAfter{Baseline: base, N: 10000,
		Before: []*Row{noopRow(10000, 12, 10), noopRow(10000, 12, 12)},
		After:  []*Row{noopRow(10000, 9, 8), noopRow(10000, 9, 7)}}
	v := find(Judge(Targets{BeforeAfter: ba}))
	assert.True(t, v.Known && v.Pass, v.Detail)
	assert.Equal(t, "N = 10000: baseline 4886998 1.100 s, current 0.750 s (-32 %; mean of 2 and 2 alternating runs)", v.Detail)

	// A run with problems is left out of the mean; more CPU after is
	// reported as it is (the target asks for the figures).
	bad := noopRow(10000, 30, 1)
	bad.Problems = []string{"exit 5"}
	ba.After = []*Row{noopRow(10000, 9, 13), bad}
	v = find(Judge(Targets{BeforeAfter: ba}))
	assert.True(t, v.Known && v.Pass, v.Detail)
	assert.Contains(t, v.Detail, "+18 %")
	assert.Contains(t, v.Detail, "current 1.300 s")
	assert.Contains(t, v.Detail, "mean of 2 and 1")

	// A baseline that did not build: not measured, with the reason.
	v = find(Judge(Targets{BeforeAfter: &BeforeAfter{Baseline: Baseline{Rev: "abc", Err: "go build: boom"}}}))
	assert.False(t, v.Known)
	assert.Equal(t, "not measured: baseline abc did not build: go build: boom", v.Detail)
	assert.Contains(t, VerdictTable([]Verdict{v}), "| not measured | not measured: baseline abc")

	// Every baseline run failed: not measured.
	v = find(Judge(Targets{BeforeAfter: &BeforeAfter{Baseline: base, N: 10000, Before: []*Row{bad}, After: []*Row{noopRow(10000, 9, 8)}}}))
	assert.False(t, v.Known)
	assert.Contains(t, v.Detail, "clean runs 0 of 1")

	// None asked for: no line.
	assert.Equal(t, "none", find(Judge(Targets{})).Target)
	assert.Equal(t, "none", find(Judge(Targets{BeforeAfter: &BeforeAfter{}})).Target)
}

func TestBeforeAfterTable_AlternatesAndAverages(t *testing.T) {
	ba := BeforeAfter{Baseline: Baseline{Rev: "4886998", Commit: "4886998abcde"}, N: 10000,
		Before: []*Row{noopRow(10000, 12, 10), noopRow(10000, 14, 12)},
		After:  []*Row{noopRow(10000, 9, 8), noopRow(10000, 11, 7)}}
	ba.Before[0].Phases = map[string]int64{DesiredLoadKey: 4000}
	ba.Before[0].Load = "3.20"
	tab := BeforeAfterTable(ba)
	lines := strings.Split(strings.TrimSpace(tab), "\n")
	require.Len(t, lines, 2+4+2)
	assert.Equal(t, "| 1 | baseline 4886998 | 12.0 s | 7.58 s | 1.58 | 10.0 s | 1.000 s | 100 MiB | 4.00 s | 3.20 | exit 0, converged |", lines[2])
	assert.True(t, strings.HasPrefix(lines[3], "| 2 | current | 9.00 s |"), lines[3])
	assert.True(t, strings.HasPrefix(lines[4], "| 3 | baseline 4886998 | 14.0 s |"), lines[4])
	assert.True(t, strings.HasPrefix(lines[5], "| 4 | current | 11.0 s |"), lines[5])
	assert.Equal(t, "| mean | baseline 4886998 | 13.0 s | 7.58 s | 1.72 | — | 1.100 s | 100 MiB | 2.00 s | — | 2 clean runs |", lines[6])
	assert.Equal(t, "| mean | current | 10.0 s | 7.58 s | 1.32 | — | 0.750 s | 100 MiB | — | — | 2 clean runs |", lines[7])
}
