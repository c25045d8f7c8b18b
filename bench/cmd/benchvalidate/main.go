// Command benchvalidate is the benchmark behind `make bench-validate`: how
// long `sops-aws-sync validate` takes over a repository of N SOPS documents
// (SPEC §15: "a repository of 10,000 documents validates structurally in
// seconds"). It builds the CLI the way releases are built, generates and
// encrypts N documents in process (bench/harness, real age keys), commits
// them to a real Git repository, then runs, alternately and -runs times
// each, `validate --no-decrypt` (the structural checks, no key) and
// `validate` with the age key (every rule of SPEC §3). No AWS endpoint is
// configured: validate builds no AWS client. Wall time, CPU time (user +
// system) and peak RSS of each run are printed and, with -out, written
// into the `bench-validate` section of docs/benchmarks.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fs := flag.NewFlagSet("benchvalidate", flag.ContinueOnError)
	root := fs.String("root", ".", "the module root to build the CLI from")
	sizes := fs.String("n", "1000,10000", "comma-separated document counts")
	runs := fs.Int("runs", 3, "runs of each mode per size (alternating)")
	out := fs.String("out", "", "write the table into this Markdown file's bench-validate section")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	ns, err := parseSizes(*sizes)
	if err != nil || *runs < 1 {
		fmt.Fprintln(os.Stderr, "benchvalidate: -n takes positive counts and -runs at least 1")
		os.Exit(2)
	}
	gen, err := run(ctx, *root, ns, *runs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchvalidate:", err)
		os.Exit(1)
	}
	fmt.Println(gen)
	if *out != "" {
		if err := harness.WriteDocSection(*out, "bench-validate", gen); err != nil {
			fmt.Fprintln(os.Stderr, "benchvalidate:", err)
			os.Exit(1)
		}
	}
}

func parseSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(f), "%d", &n); err != nil || n < 1 {
			return nil, fmt.Errorf("bad size %q", f)
		}
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return slices.Compact(ns), nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s benchvalidate: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// mode is one way of running validate.
type mode struct {
	label string
	args  []string
	key   bool // SOPS_AGE_KEY_FILE set
}

var modes = []mode{
	{label: "validate --no-decrypt (no key)", args: []string{"--no-decrypt"}},
	{label: "validate (age key)", key: true},
}

// result is the runs of one mode at one size.
type result struct {
	n    int
	mode mode
	ms   []harness.Measurement
}

func run(ctx context.Context, root string, ns []int, runs int) (string, error) {
	started := time.Now()
	work, err := os.MkdirTemp("", "sops-aws-sync-benchvalidate-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	cli := filepath.Join(work, "bin", "sops-aws-sync")
	logf("building the CLI (CGO_ENABLED=0, -trimpath)")
	if err := harness.BuildPackage(root, "./cmd/sops-aws-sync", cli); err != nil {
		return "", err
	}
	key, err := harness.NewAgeKey()
	if err != nil {
		return "", err
	}
	keyFile := filepath.Join(work, "age.key")
	if err := os.WriteFile(keyFile, []byte(key.Identity+"\n"), 0o600); err != nil {
		return "", err
	}
	var corpora []harness.Corpus
	var cipher [][][]byte
	for _, n := range ns {
		c, err := harness.NewCorpus(harness.CorpusSpec{
			RepositoryID: "bench/validate", SourceRoot: fmt.Sprintf("n%d", n),
			Prefix: fmt.Sprintf("bench/n%d", n), N: n, ValueBytes: 256, Seed: uint64(n),
		})
		if err != nil {
			return "", err
		}
		logf("encrypting %d documents (age, in process)", n)
		ct, err := harness.EncryptAll(c.Docs, key.Recipient)
		if err != nil {
			return "", err
		}
		corpora, cipher = append(corpora, c), append(cipher, ct)
	}
	repo, err := harness.WriteRepo(filepath.Join(work, "repo"), corpora, cipher)
	if err != nil {
		return "", err
	}
	home := filepath.Join(work, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", err
	}

	var results []*result
	for _, c := range corpora {
		rs := make([]*result, len(modes))
		for i, m := range modes {
			rs[i] = &result{n: len(c.Docs), mode: m}
		}
		for r := range runs {
			for i, m := range modes {
				env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir(),
					// No AWS endpoint, no credentials: validate must not need them.
					"AWS_EC2_METADATA_DISABLED=true"}
				if m.key {
					env = append(env, "SOPS_AGE_KEY_FILE="+keyFile)
				}
				args := append([]string{"validate", "--repository", repo.Dir, "--revision", repo.Commit,
					"--repository-id", c.Scope.RepositoryID, "--source-root", c.Scope.SourceRoot,
					"--secret-prefix", c.Scope.Prefix, "--aws-region", "us-east-1", "--log-format", "json"}, m.args...)
				meas, err := harness.Run(ctx, harness.Invocation{Bin: cli, Args: args, Env: env, Dir: work})
				if err != nil {
					return "", err
				}
				if meas.ExitCode != 0 {
					return "", fmt.Errorf("%s over %d documents exited %d: %s", m.label, len(c.Docs), meas.ExitCode, tail(meas.Stderr))
				}
				logf("N=%d %s run %d: %s, CPU %s, peak RSS %d MiB", len(c.Docs), m.label, r+1,
					meas.Wall.Round(time.Millisecond), meas.CPU.Round(time.Millisecond), meas.MaxRSSKiB/1024)
				rs[i].ms = append(rs[i].ms, meas)
			}
		}
		results = append(results, rs...)
	}
	return render(results, runs, time.Since(started)), nil
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return s
}

// median returns the median of f over ms (the lower middle for an even count).
func median(ms []harness.Measurement, f func(harness.Measurement) float64) float64 {
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	slices.Sort(v)
	return v[(len(v)-1)/2]
}

func render(results []*result, runs int, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Generated by `make bench-validate` on %s, %s (load average, 1 min, at the end: %s); %d runs of each mode per size, alternating; medians.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), harness.Machine(), harness.LoadAvg(), runs)
	b.WriteString("| documents | mode | wall (median) | wall (min–max) | CPU user+sys | peak RSS | per 1,000 documents |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		wall := median(r.ms, func(m harness.Measurement) float64 { return m.Wall.Seconds() })
		cpu := median(r.ms, func(m harness.Measurement) float64 { return m.CPU.Seconds() })
		rss := median(r.ms, func(m harness.Measurement) float64 { return float64(m.MaxRSSKiB) / 1024 })
		lo := slices.MinFunc(r.ms, func(a, b harness.Measurement) int { return int(a.Wall - b.Wall) }).Wall.Seconds()
		hi := slices.MaxFunc(r.ms, func(a, b harness.Measurement) int { return int(a.Wall - b.Wall) }).Wall.Seconds()
		fmt.Fprintf(&b, "| %d | %s | %.2f s | %.2f–%.2f s | %.2f s | %.0f MiB | %.3f s |\n",
			r.n, r.mode.label, wall, lo, hi, cpu, rss, wall*1000/float64(r.n))
	}
	fmt.Fprintf(&b, "\nWhole run (generation, encryption, Git, %d validations): %s.\n", len(results)*runs, took.Round(time.Second))
	return b.String()
}
