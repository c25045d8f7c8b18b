package harness

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Baseline is the CLI built at another git revision of the module, run
// beside the current build in the same harness run so that machine noise
// hits both ("before and after, same run").
type Baseline struct {
	// Rev is the revision as asked for (-baseline), Commit the commit it
	// names (12 hex digits; "" when it names none).
	Rev, Commit string
	// CLI is the path of the built binary; "" when it was not built.
	CLI string
	// Err says why it was not built ("" = built).
	Err string
}

// BuildBaseline builds ./cmd/sops-aws-sync of the module at root as it was
// at git revision rev: the revision's tree is exported with `git archive`
// into dir/src (the repository's work tree, index and worktree list are
// left alone) and built into dir/sops-aws-sync with the flags of
// BuildPackage. A revision that names no commit, or a tree that does not
// build, is returned as a Baseline with Err set, never as a failure of the
// caller's run; Err is at most about 400 bytes of git's or the compiler's
// own text (file names and positions, no secret material: the tree is
// source code).
func BuildBaseline(root, rev, dir string) Baseline {
	b := Baseline{Rev: rev}
	fail := func(format string, args ...any) Baseline {
		b.Err = clip(fmt.Sprintf(format, args...), 400)
		return b
	}
	if rev == "" || strings.HasPrefix(rev, "-") {
		return fail("no revision given")
	}
	out, err := gitOutput(root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return fail("%s names no commit of %s", rev, root)
	}
	b.Commit = out[:min(12, len(out))]
	src := filepath.Join(dir, "src")
	if err := os.RemoveAll(src); err != nil {
		return fail("%v", err)
	}
	if err := os.MkdirAll(src, 0o755); err != nil {
		return fail("%v", err)
	}
	tarFile := filepath.Join(dir, "src.tar")
	if _, err := gitOutput(root, "archive", "--format=tar", "-o", tarFile, out); err != nil {
		return fail("git archive %s: %v", b.Commit, err)
	}
	defer os.Remove(tarFile)
	tar := exec.Command("tar", "-x", "-f", tarFile, "-C", src)
	if msg, err := tar.CombinedOutput(); err != nil {
		return fail("tar -x: %v: %s", err, bytes.TrimSpace(msg))
	}
	cli := filepath.Join(dir, "sops-aws-sync")
	if err := BuildPackage(src, "./cmd/sops-aws-sync", cli); err != nil {
		return fail("%v", err)
	}
	b.CLI = cli
	return b
}

// Label names the baseline binary in tables: "baseline 4886998" plus the
// commit when the revision was not already it.
func (b Baseline) Label() string {
	if b.Commit == "" || strings.HasPrefix(b.Commit, b.Rev) {
		return "baseline " + b.Rev
	}
	return fmt.Sprintf("baseline %s (%s)", b.Rev, b.Commit)
}

func gitOutput(root string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// clip shortens s to about n bytes on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + " …"
}

// BeforeAfter is the same-run comparison of the baseline build with the
// current one: the no-op sync at one N and concurrency, run alternately
// (baseline, current, baseline, current) against the same corpus and
// emulator conditions.
type BeforeAfter struct {
	Baseline Baseline
	// N is the number of secrets of the compared runs (0 = not run).
	N int
	// Before are the baseline's runs, After the current build's, in the
	// order run (they alternate).
	Before, After []*Row
	// Skipped says why the pair was not run although a baseline was asked
	// for ("" = run, or no baseline asked for when Baseline.Rev is "").
	Skipped string
}

// Asked reports whether a baseline was asked for.
func (ba BeforeAfter) Asked() bool { return ba.Baseline.Rev != "" }

// clean reports whether r ran without a problem and its CPU was measured.
func clean(r *Row) bool {
	return r != nil && r.Skipped == "" && len(r.Problems) == 0 && r.CPUPer1000() > 0
}

// meanCPUPer1000 is the mean CPU seconds per 1,000 secrets over rows that
// ran cleanly, and how many did.
func meanCPUPer1000(rows []*Row) (float64, int) {
	var sum float64
	var k int
	for _, r := range rows {
		if clean(r) {
			sum += r.CPUPer1000()
			k++
		}
	}
	if k == 0 {
		return 0, 0
	}
	return sum / float64(k), k
}

// judgeBeforeAfter is the target "CPU seconds per 1,000 secrets reported
// before and after the change, same run": known when both builds ran
// cleanly at least once, and then passed, since the target asks for the
// two figures side by side; the detail gives both means and the change, which
// the reader judges against this machine's noise (two byte-identical
// builds differed by 12 % at N = 200, docs/benchmarks.md).
func judgeBeforeAfter(ba *BeforeAfter) []Verdict {
	if ba == nil || !ba.Asked() {
		return nil
	}
	v := Verdict{Target: "(issue 24) CPU seconds per 1,000 secrets before/after the change, same run (no-op sync, default concurrency): reported"}
	switch {
	case ba.Baseline.Err != "":
		v.Detail = fmt.Sprintf("not measured: %s did not build: %s", ba.Baseline.Label(), ba.Baseline.Err)
		return []Verdict{v}
	case ba.Skipped != "":
		v.Detail = "not measured: " + ba.Skipped
		return []Verdict{v}
	}
	before, nb := meanCPUPer1000(ba.Before)
	after, na := meanCPUPer1000(ba.After)
	if nb == 0 || na == 0 {
		v.Detail = fmt.Sprintf("not measured: clean runs %d of %d (%s), %d of %d (current)", nb, len(ba.Before), ba.Baseline.Label(), na, len(ba.After))
		return []Verdict{v}
	}
	v.Known, v.Pass = true, true
	v.Detail = fmt.Sprintf("N = %d: %s %.3f s, current %.3f s (%+.0f %%; mean of %d and %d alternating runs)",
		ba.N, ba.Baseline.Label(), before, after, 100*(after/before-1), nb, na)
	return []Verdict{v}
}

// BeforeAfterTable renders the alternating runs of ba as Markdown, one row
// per run in the order run, then the mean of each build.
func BeforeAfterTable(ba BeforeAfter) string {
	var b strings.Builder
	b.WriteString("| run | binary | wall | lower bound | wall / bound | CPU | CPU s per 1,000 | peak RSS | desired-state time | load | result |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	type entry struct {
		r    *Row
		name string
	}
	var order []entry
	for i := range max(len(ba.Before), len(ba.After)) {
		if i < len(ba.Before) {
			order = append(order, entry{ba.Before[i], ba.Baseline.Label()})
		}
		if i < len(ba.After) {
			order = append(order, entry{ba.After[i], "current"})
		}
	}
	for i, e := range order {
		r := e.r
		if r.Skipped != "" {
			fmt.Fprintf(&b, "| %d | %s | — | %s | — | — | — | — | — | — | not run: %s |\n", i+1, e.name, FormatDuration(r.Bound), r.Skipped)
			continue
		}
		result := fmt.Sprintf("exit %d, %s", r.ExitCode, r.Status)
		if len(r.Problems) > 0 {
			result += "; **" + strings.Join(r.Problems, "; ") + "**"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %.2f | %s | %s | %.0f MiB | %s | %s | %s |\n", i+1, e.name,
			FormatDuration(r.Wall), FormatDuration(r.Bound), r.Ratio(), FormatDuration(r.CPU), formatPer1000(r.CPUPer1000()),
			float64(r.MaxRSSKiB)/1024, FormatDuration(r.Decrypt()), cmp.Or(r.Load, "—"), result)
	}
	for _, m := range []struct {
		name string
		rows []*Row
	}{{ba.Baseline.Label(), ba.Before}, {"current", ba.After}} {
		if len(m.rows) == 0 {
			continue
		}
		mean, k := meanCPUPer1000(m.rows)
		var wall, ratio, rss, dec float64
		for _, r := range m.rows {
			if clean(r) {
				wall += r.Wall.Seconds()
				ratio += r.Ratio()
				rss += float64(r.MaxRSSKiB) / 1024
				dec += r.Decrypt().Seconds()
			}
		}
		if k == 0 {
			fmt.Fprintf(&b, "| mean | %s | — | — | — | — | — | — | — | — | no clean run |\n", m.name)
			continue
		}
		f := float64(k)
		fmt.Fprintf(&b, "| mean | %s | %s | %s | %.2f | — | %.3f s | %.0f MiB | %s | — | %d clean runs |\n", m.name,
			FormatDuration(seconds(wall/f)), FormatDuration(m.rows[0].Bound), ratio/f, mean, rss/f, FormatDuration(seconds(dec/f)), k)
	}
	return b.String()
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
