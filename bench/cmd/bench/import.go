package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/gowebpki/jcs"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// The import rows (row group import, `make bench-import`; SPEC §18): one
// `sops-aws-sync import` of an estate of -import-n secrets made by hand
// (mixed JSON, text and binary values, no ownership tags) under AWS's
// quotas and -latency per call, measured against the bound the read quota
// and the encryption CPU set (importBound; docs/benchmarks.md "Import
// rows"). The row group runs alone: it has its own estate, repository and
// emulator.

// importKinds are the value kinds of the estate, in the order secrets
// cycle through them, with the document suffix import writes for each.
var importKinds = []struct{ name, suffix string }{
	{"JSON", ".sops.json"}, {"text", ".sops.txt"}, {"binary", ".sops.bin"},
}

// importSecret is one secret of the estate: its name relative to the
// prefix, its kind (an index of importKinds) and its value.
type importSecret struct {
	rel   string
	kind  int
	value []byte
}

// importEstate generates n secrets deterministically: the kinds in turn; a
// canonical JSON object (RFC 8785: what import writes as a .sops.json), a
// PEM-like text and random bytes, each about size bytes.
func importEstate(n, size int) ([]importSecret, error) {
	rng := rand.New(rand.NewPCG(46, 0x696d706f7274))
	word := func(k int) string {
		b := make([]byte, k)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return string(b)
	}
	out := make([]importSecret, n)
	for i := range n {
		s := importSecret{rel: fmt.Sprintf("g%02d/i%05d", i/1000, i), kind: i % len(importKinds)}
		switch s.kind {
		case 0:
			v, err := jcs.Transform([]byte(fmt.Sprintf(`{"id":"import-%05d","port":%d,"password":%q}`, i, 5000+i, word(max(16, size-60)))))
			if err != nil {
				return nil, err
			}
			s.value = v
		case 1:
			var b strings.Builder
			b.WriteString("-----BEGIN PRIVATE KEY-----\n")
			for b.Len() < size-26 {
				b.WriteString(word(64) + "\n")
			}
			b.WriteString("-----END PRIVATE KEY-----\n")
			s.value = []byte(b.String())
		default:
			s.value = make([]byte, size)
			for j := range s.value {
				s.value[j] = byte(rng.IntN(256))
			}
		}
		out[i] = s
	}
	return out, nil
}

// alnum is the alphabet of generated words.
const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// importScope is the scope of the import rows: its source root and prefix.
func importScope(n int) (root, prefix string) {
	return "imp" + strconv.Itoa(n), "bench/import" + strconv.Itoa(n)
}

// encProbe is what one `sops encrypt` process costs, measured on a sample
// of the estate's values exactly as import runs it (encryptProbe).
type encProbe struct {
	N      int
	CPU    time.Duration // mean user + system time per process
	Wall   time.Duration // mean wall per process
	ByKind []time.Duration
	Load   string // 1-minute load average when the probe ended
}

// importRun is one measured import.
type importRun struct {
	Who            string // "current", or the baseline's label
	Wall, CPU      time.Duration
	RSSKiB         int64
	Exit           int
	Status, Counts string
	Staged         int
	Calls          harness.Calls // answered (throttled attempts and SDK retries removed)
	Throttled      int64
	Load           [2]string // 1-minute load average before and after
	Problems       []string
}

// importEnv is the state of the import rows.
type importEnv struct {
	e        *env
	n        int
	estate   []importSecret
	sops     string
	keyFile  string
	recip    string
	emuURL   string
	ctl      emulatortest.Control
	work     string
	runs     int
	probes   []encProbe
	results  []importRun
	baseline string // the baseline's CLI ("" = none)
}

// runImport is the whole run of row group import: the estate seeded once
// (imports write nothing to AWS), an encryption probe, the imports (the
// current build -import-runs times; with -baseline the baseline build and
// the current one alternately, -baseline-pairs times), a second probe, and
// the Markdown section.
func (e *env) runImport(ctx context.Context, work string, started time.Time) error {
	o := e.o
	im := &importEnv{e: e, n: o.importN, work: filepath.Join(work, "import")}
	var err error
	if im.sops, err = harness.SOPSBinary(); err != nil {
		return err
	}
	if im.estate, err = importEstate(o.importN, o.valueBytes); err != nil {
		return err
	}
	key, err := harness.NewAgeKey()
	if err != nil {
		return err
	}
	im.recip, im.keyFile = key.Recipient, filepath.Join(im.work, "age.key")
	if err := os.MkdirAll(im.work, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(im.keyFile, []byte(key.Identity+"\n"), 0o600); err != nil {
		return err
	}
	logf("starting the emulator: latency %v per call, AWS quotas on", o.latency)
	emu, err := emulatortest.StartProcess(ctx, e.bins.Emulator, os.Stderr, "--seed", "1")
	if err != nil {
		return err
	}
	defer func() {
		if err := emu.Stop(); err != nil {
			logf("emulator stop: %v", err)
		}
	}()
	e.emuPid, im.emuURL, im.ctl = emu.Pid(), emu.URL, emu.Control()
	if err := im.seed(ctx); err != nil {
		return err
	}
	if err := im.probe(ctx); err != nil {
		return err
	}
	if e.ba.Asked() && e.ba.Baseline.Err == "" {
		im.baseline = e.ba.Baseline.CLI
	}
	for i := range o.importRuns {
		if im.baseline != "" && i < o.baselinePairs {
			if err := im.measure(ctx, im.baseline, e.ba.Baseline.Label()); err != nil {
				return err
			}
		}
		if err := im.measure(ctx, e.bins.CLI, "current"); err != nil {
			return err
		}
	}
	if err := im.probe(ctx); err != nil {
		return err
	}
	gen := im.render(time.Since(started))
	fmt.Println(gen)
	if o.out != "" {
		if err := harness.WriteDocSection(o.out, o.section, gen); err != nil {
			return err
		}
		logf("wrote %s", o.out)
	}
	return nil
}

// seed makes the emulator hold exactly the estate (CreateSecret with
// SecretString or SecretBinary, no tags), faults off, then sets the
// measurement conditions.
func (im *importEnv) seed(ctx context.Context) error {
	if err := im.ctl.SetFaults(ctx, emulator.Faults{Seed: 1}); err != nil {
		return err
	}
	if err := im.ctl.Reset(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	sm := harness.NewClient(im.emuURL)
	_, prefix := importScope(im.n)
	var wg sync.WaitGroup
	errs := make([]error, len(im.estate))
	sem := make(chan struct{}, harness.SeedConcurrency)
	for i, s := range im.estate {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			in := &secretsmanager.CreateSecretInput{Name: aws.String(prefix + "/" + s.rel)}
			if s.kind == 2 {
				in.SecretBinary = s.value
			} else {
				in.SecretString = aws.String(string(s.value))
			}
			if _, err := sm.CreateSecret(ctx, in); err != nil {
				errs[i] = fmt.Errorf("seed CreateSecret %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	logf("seeded %d secrets made by hand (JSON, text, binary in turn) in %v", len(im.estate), time.Since(t0).Round(time.Millisecond))
	return im.ctl.SetFaults(ctx, im.e.faults)
}

// sopsRule is the .sops.yaml of the import repositories: every document
// under the source root encrypted for the run's age key.
func (im *importEnv) sopsRule() []byte {
	root, _ := importScope(im.n)
	return []byte("creation_rules:\n  - path_regex: ^" + root + "/\n    age: " + im.recip + "\n")
}

// probeSample is how many values (the first of the estate: the kinds in
// turn) one encryption probe encrypts.
const probeSample = 30

// probe measures `sops encrypt` as import runs it (internal/importer.CLI:
// --config, encrypt --filename-override PATH, the plaintext on standard
// input, the document on standard output), one process at a time, on the
// first probeSample values of the estate: the mean CPU (user + system,
// wait4's rusage) and wall per process, overall and by kind.
func (im *importEnv) probe(ctx context.Context) error {
	dir := filepath.Join(im.work, "probe")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	cfg := filepath.Join(dir, ".sops.yaml")
	if err := os.WriteFile(cfg, im.sopsRule(), 0o600); err != nil {
		return err
	}
	root, _ := importScope(im.n)
	p := encProbe{ByKind: make([]time.Duration, len(importKinds))}
	perKind := make([]int, len(importKinds))
	harness.WaitQuiet(15*time.Second, im.e.emuPid)
	for _, s := range im.estate[:min(probeSample, len(im.estate))] {
		cmd := exec.CommandContext(ctx, im.sops, "--disable-version-check", "--config", cfg, "encrypt", "--filename-override",
			filepath.Join(dir, root, filepath.FromSlash(s.rel)+importKinds[s.kind].suffix))
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + im.e.home}
		cmd.Stdin = bytes.NewReader(s.value)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("sops encrypt (probe): %v: %s", err, strings.TrimSpace(errb.String()))
		}
		p.Wall += time.Since(t0)
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		p.CPU += cpu
		p.ByKind[s.kind] += cpu
		perKind[s.kind]++
		p.N++
	}
	p.CPU /= time.Duration(p.N)
	p.Wall /= time.Duration(p.N)
	for k := range p.ByKind {
		if perKind[k] > 0 {
			p.ByKind[k] /= time.Duration(perKind[k])
		}
	}
	p.Load = harness.LoadAvg()
	im.probes = append(im.probes, p)
	logf("sops encrypt, %d processes one at a time: %s CPU and %s wall each (JSON %s, text %s, binary %s CPU); load %s",
		p.N, harness.FormatDuration(p.CPU), harness.FormatDuration(p.Wall),
		harness.FormatDuration(p.ByKind[0]), harness.FormatDuration(p.ByKind[1]), harness.FormatDuration(p.ByKind[2]), p.Load)
	return nil
}

// newRepo makes a fresh repository for one import: the creation rule
// committed, nothing else.
func (im *importEnv) newRepo(ctx context.Context) (string, error) {
	im.runs++
	dir := filepath.Join(im.work, fmt.Sprintf("repo-%02d", im.runs))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ".sops.yaml"), im.sopsRule(), 0o600); err != nil {
		return "", err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "user.email", "bench@example.invalid"}, {"config", "user.name", "bench"},
		{"config", "commit.gpgsign", "false"}, {"add", ".sops.yaml"}, {"commit", "-q", "-m", "creation rule"},
	} {
		if _, err := im.git(ctx, dir, args...); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func (im *importEnv) git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + im.e.home, "GIT_CONFIG_NOSYSTEM=1"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// measure runs one import of the estate with bin into a fresh repository
// and checks what it did: exit 0, status drift, every secret counted as an
// adoption, one staged document per secret, no write to AWS, and a sample
// of one document per kind that the sops CLI decrypts to the live bytes.
func (im *importEnv) measure(ctx context.Context, bin, who string) error {
	o := im.e.o
	repo, err := im.newRepo(ctx)
	if err != nil {
		return err
	}
	tmp := filepath.Join(im.work, fmt.Sprintf("tmp-%02d", im.runs))
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	root, prefix := importScope(im.n)
	reportFile := filepath.Join(im.work, fmt.Sprintf("report-%02d.json", im.runs))
	args := []string{"import", "--repository", repo, "--repository-id", "bench/repo", "--source-root", root,
		"--secret-prefix", prefix, "--aws-region", "us-east-1", "--report-file", reportFile, "--log-format", "json",
		"--run-timeout", "60m"}
	env := []string{
		"PATH=" + filepath.Dir(im.sops) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + im.e.home, "TMPDIR=" + tmp,
		"GIT_CONFIG_NOSYSTEM=1", "SOPS_AGE_KEY_FILE=" + im.keyFile,
		"AWS_ACCESS_KEY_ID=AKIDBENCH", "AWS_SECRET_ACCESS_KEY=bench-secret",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + im.emuURL, "AWS_EC2_METADATA_DISABLED=true",
	}
	env = append(env, o.cliEnv...)
	if waited := harness.WaitQuiet(15*time.Second, im.e.emuPid, 0); waited > time.Second {
		logf("  waited %s for the emulator and the harness to go quiet", harness.FormatDuration(waited))
	}
	// Setting the conditions refills the quota buckets: every import
	// starts from full ones.
	if err := im.ctl.SetFaults(ctx, im.e.faults); err != nil {
		return err
	}
	before, err := im.ctl.Stats(ctx)
	if err != nil {
		return err
	}
	r := importRun{Who: who, Load: [2]string{harness.LoadAvg()}}
	logf("import N=%d [%s]: running (bound %s)", im.n, who, harness.FormatDuration(im.bound().B))
	m, err := harness.Run(ctx, harness.Invocation{Bin: bin, Args: args, Env: env, Dir: repo})
	if err != nil {
		return err
	}
	after, err := im.ctl.Stats(ctx)
	if err != nil {
		return err
	}
	r.Load[1] = harness.LoadAvg()
	r.Wall, r.CPU, r.RSSKiB, r.Exit = m.Wall, m.CPU, m.MaxRSSKiB, m.ExitCode
	d := harness.Sub(after, before)
	r.Calls, r.Throttled = harness.Calls{}, d.Throttled.Total()
	for op, n := range d.Sent() {
		if v := n - d.Throttled[op]; v != 0 {
			r.Calls[op] = v
		}
	}
	if r.Exit != 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("exit %d", r.Exit))
	}
	if len(m.Stderr) > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("stderr: %.200q", m.Stderr))
	}
	if mut := d.Calls.Mutations(); mut != 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%d mutating calls", mut))
	}
	if rep, err := harness.ReadReport(reportFile); err != nil {
		r.Problems = append(r.Problems, "no valid report: "+err.Error())
	} else {
		r.Status = string(rep.Status)
		k := rep.Counts
		r.Counts = fmt.Sprintf("c%d u%d r%d d%d =%d", k.Create, k.Update, k.Restore, k.ScheduleDelete, k.Unchanged)
		if rep.Status != vocab.StatusDrift || k.Update != im.n {
			r.Problems = append(r.Problems, fmt.Sprintf("status %s, %d adoptions planned, want drift and %d", rep.Status, k.Update, im.n))
		}
	}
	if out, err := im.git(ctx, repo, "diff", "--cached", "--name-only"); err == nil {
		r.Staged = len(strings.Fields(out))
	}
	if r.Staged != im.n {
		r.Problems = append(r.Problems, fmt.Sprintf("%d documents staged, want %d", r.Staged, im.n))
	}
	if r.Exit == 0 {
		r.Problems = append(r.Problems, im.verify(ctx, repo)...)
	}
	logf("  → %s, exit %d, %s, %d calls (%s), %d throttled, peak RSS %.0f MiB, CPU %s; load %s → %s",
		harness.FormatDuration(r.Wall), r.Exit, r.Status, r.Calls.Total(), harness.FormatCalls(r.Calls), r.Throttled,
		float64(r.RSSKiB)/1024, harness.FormatDuration(r.CPU), r.Load[0], r.Load[1])
	for _, p := range r.Problems {
		logf("  ! %s", p)
	}
	im.results = append(im.results, r)
	return nil
}

// verify decrypts, with the sops CLI, the document of the first secret of
// each kind and compares it with the live value (a .sops.json after
// canonicalization: the JSON store writes its own spelling).
func (im *importEnv) verify(ctx context.Context, repo string) []string {
	root, _ := importScope(im.n)
	var bad []string
	for _, s := range im.estate[:min(len(importKinds), len(im.estate))] {
		rel := root + "/" + s.rel + importKinds[s.kind].suffix
		cmd := exec.CommandContext(ctx, im.sops, "--disable-version-check", "decrypt", rel)
		cmd.Dir = repo
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + im.e.home, "SOPS_AGE_KEY_FILE=" + im.keyFile}
		got, err := cmd.Output()
		if err == nil && s.kind == 0 {
			got, err = jcs.Transform(got)
		}
		if err != nil || !bytes.Equal(got, s.value) {
			bad = append(bad, fmt.Sprintf("%s does not decrypt to the live value", importKinds[s.kind].name))
		}
	}
	return bad
}

// importBounds is the bound of one import of N secrets and its parts.
type importBounds struct {
	// Obs is one observation of the N names under AWS's quotas and the
	// latency (harness.Model.Observe with N describes, N listed, N
	// values, the default concurrency): import's own, and its proof's.
	Obs time.Duration
	// Enc is the encryption CPU spread over every core: N · c / P, with c
	// the mean CPU of one sops process (the probes) and P the CPUs.
	Enc time.Duration
	// B = max(Obs, Enc) + Obs: the encryptions can overlap the reads at
	// best, and the proof reads again after the last document is written.
	B     time.Duration
	CPU   time.Duration // c
	Cores int           // P
}

// bound is importBound at this run's figures: the mean of the probes'
// CPU per process, the machine's CPUs.
func (im *importEnv) bound() importBounds {
	var cpu time.Duration
	for _, p := range im.probes {
		cpu += p.CPU
	}
	if len(im.probes) > 0 {
		cpu /= time.Duration(len(im.probes))
	}
	return importBound(im.e.model, im.n, config.DefaultConcurrency, cpu, runtime.NumCPU())
}

// importBound is the least wall time an import of n secrets can take
// under model m (latency, AWS's quotas) with c calls in flight, when one
// encryption costs cpu and cores CPUs run them: see importBounds.
func importBound(m harness.Model, n, c int, cpu time.Duration, cores int) importBounds {
	b := importBounds{Obs: m.Observe(n, n, n, c), CPU: cpu, Cores: max(1, cores)}
	b.Enc = time.Duration(int64(cpu) * int64(n) / int64(b.Cores))
	b.B = max(b.Obs, b.Enc) + b.Obs
	return b
}

// render is the Markdown section of the import rows.
func (im *importEnv) render(took time.Duration) string {
	o := im.e.o
	bd := im.bound()
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("## Latest run of `make %s`\n\n", o.section)
	w("- Date: %s (the harness ran for %s).\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), took.Round(time.Second))
	w("- Machine: %s; load average (1 min) %s at the start, %s at the end — other processes on the machine share its CPUs.\n", harness.Machine(), im.e.loadStart, harness.LoadAvg())
	w("- Tree: %s.\n", harness.TreeState(o.root))
	w("- Command: `go run ./bench/cmd/bench %s`.\n", strings.Join(os.Args[1:], " "))
	w("- Estate: %d secrets made by hand under `bench/import%d` (no tags), JSON objects in canonical form, PEM-like texts and random binary values in turn, about %d bytes each; emulator binary with %v latency per call and AWS's request quotas on.\n", im.n, im.n, o.valueBytes, o.latency)
	w("- Each run: `sops-aws-sync import --repository R --repository-id bench/repo --source-root imp%d --secret-prefix bench/import%d --aws-region us-east-1 --report-file F --log-format json --run-timeout 60m` in a fresh repository holding only the `.sops.yaml` (age), with the tested `sops` on `PATH`; checked: exit 0, drift with %d adoptions, %d staged documents, no write to AWS, one document per kind decrypted by the `sops` CLI to the live bytes. CPU is the CLI's user + system time with its waited-for children's (the `sops` processes; wait4's rusage); peak RSS is the CLI's own `VmHWM` (a `sops` child's is its own, not counted).\n\n", im.n, im.n, im.n, im.n)
	w("### Encryption probes\n\n`sops encrypt` as import runs it, one process at a time, on the first %d values of the estate:\n\n", probeSample)
	w("| probe | processes | CPU each | JSON | text | binary | wall each | load (1 min) after |\n|---|---|---|---|---|---|---|---|\n")
	for i, p := range im.probes {
		w("| %d | %d | %s | %s | %s | %s | %s | %s |\n", i+1, p.N, harness.FormatDuration(p.CPU), harness.FormatDuration(p.ByKind[0]),
			harness.FormatDuration(p.ByKind[1]), harness.FormatDuration(p.ByKind[2]), harness.FormatDuration(p.Wall), p.Load)
	}
	w("\n### Bound\n\nobs(N) = %s (one observation of %d names, `harness.Model.Observe`, --concurrency %d); enc(N) = N · c / P = %d × %s / %d = %s; B = max(obs, enc) + obs = **%s**; the target is 1.5 × B = %s.\n\n",
		harness.FormatDuration(bd.Obs), im.n, config.DefaultConcurrency, im.n, harness.FormatDuration(bd.CPU), bd.Cores,
		harness.FormatDuration(bd.Enc), harness.FormatDuration(bd.B), harness.FormatDuration(bd.B*3/2))
	w("### Runs\n\n| CLI | wall | wall / B | CPU | CPU / N | peak RSS | calls | throttled | load (1 min) before → after | status | counts | problems |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range im.results {
		prob := strings.Join(r.Problems, "; ")
		if prob == "" {
			prob = "—"
		}
		w("| %s | %s | %.2f | %s | %s | %.0f MiB | %d (%s) | %d | %s → %s | %s | %s | %s |\n", r.Who, harness.FormatDuration(r.Wall),
			r.Wall.Seconds()/bd.B.Seconds(), harness.FormatDuration(r.CPU), harness.FormatDuration(r.CPU/time.Duration(max(1, im.n))),
			float64(r.RSSKiB)/1024, r.Calls.Total(), harness.FormatCalls(r.Calls), r.Throttled, r.Load[0], r.Load[1], r.Status, r.Counts, prob)
	}
	w("\n### Targets (issue 46)\n\n| target | runs of the current build that meet it | verdict |\n|---|---|---|\n")
	var cur []importRun
	for _, r := range im.results {
		if r.Who == "current" && len(r.Problems) == 0 {
			cur = append(cur, r)
		}
	}
	wallOK := slices.IndexFunc(cur, func(r importRun) bool { return r.Wall <= bd.B*3/2 }) >= 0
	rssOK := len(cur) > 0 && !slices.ContainsFunc(cur, func(r importRun) bool { return r.RSSKiB > 200*1024 })
	count := func(ok func(importRun) bool) int {
		n := 0
		for _, r := range cur {
			if ok(r) {
				n++
			}
		}
		return n
	}
	w("| wall ≤ 1.5 × B (%s) | %d of %d | %s |\n", harness.FormatDuration(bd.B*3/2), count(func(r importRun) bool { return r.Wall <= bd.B*3/2 }), len(cur), verdictWord(wallOK, len(cur)))
	w("| peak RSS ≤ 200 MiB | %d of %d | %s |\n\n", count(func(r importRun) bool { return r.RSSKiB <= 200*1024 }), len(cur), verdictWord(rssOK, len(cur)))
	w("The wall target is met when one clean run of the current build meets it (the machine is shared: a run slowed by other processes' load says nothing of the tool); the RSS target when every one does.\n")
	return b.String()
}

// verdictWord is a target's verdict: met, not met, or not measured (no
// clean run).
func verdictWord(ok bool, runs int) string {
	switch {
	case runs == 0:
		return "not measured (no clean run)"
	case ok:
		return "met"
	}
	return "not met"
}
