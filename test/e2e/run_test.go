package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/logging"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// awsSecretKey is the static secret access key given to the CLI; it is a
// canary too (credentials must never be printed).
const awsSecretKey = "CANARYawsSecretKey" + "0000000000000000000000"

// result is one finished CLI run.
type result struct {
	Code      int
	Stdout    string
	Stderr    string
	RawReport []byte
	Report    *report.Report
}

// records returns the JSON log records on stdout.
func (r result) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "stdout line is not a JSON record: %q", line)
		out = append(out, m)
	}
	return out
}

// final returns the "run finished" record.
func (r result) final(t *testing.T) map[string]any {
	t.Helper()
	recs := r.records(t)
	require.NotEmpty(t, recs, "no log record")
	require.Equal(t, "run finished", recs[len(recs)-1]["msg"], "the last record:\n%s", r.Stdout)
	return recs[len(recs)-1]
}

// runOpts tune one run.
type runOpts struct {
	Env       []string // extra environment entries
	NoReport  bool     // do not pass --report-file
	ShowNames bool     // the run passes --show-resource-names: names are not canaries
	Config    string   // YAML config file content (passed with --config)
}

// cmd prepares a CLI invocation against e for fixture f.
func (f *fixture) cmd(e *emu, o runOpts, args ...string) (*exec.Cmd, string) {
	f.t.Helper()
	dir := f.t.TempDir()
	reportPath := filepath.Join(dir, "report.json")
	full := append([]string{}, args...)
	if !o.NoReport && len(args) > 0 && (args[0] == "plan" || args[0] == "sync" || args[0] == "import") {
		full = append(full, "--report-file", reportPath)
	}
	if o.Config != "" {
		p := filepath.Join(dir, "config.yaml")
		require.NoError(f.t, os.WriteFile(p, []byte(o.Config), 0o600))
		full = append(full, "--config", p)
	}
	cmd := exec.Command(cliBin, full...)
	cmd.Dir = f.Repo
	cmd.Env = append(f.env(),
		"AWS_ACCESS_KEY_ID=AKIDE2E",
		"AWS_SECRET_ACCESS_KEY="+awsSecretKey,
		"AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "no-aws-credentials"),
	)
	if e != nil {
		cmd.Env = append(cmd.Env, "AWS_ENDPOINT_URL_SECRETS_MANAGER="+e.URL)
	}
	cmd.Env = append(cmd.Env, o.Env...)
	return cmd, reportPath
}

// args returns the usual flags for this fixture.
func (f *fixture) args(command string, extra ...string) []string {
	return append([]string{command, "--secret-prefix", f.Prefix, "--repository-id", f.RepoID}, extra...)
}

// run runs the CLI to completion, then checks the report schema and scans
// every output for canaries.
func (f *fixture) run(e *emu, o runOpts, args ...string) result {
	f.t.Helper()
	cmd, reportPath := f.cmd(e, o, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return f.finish(e, o, cmd, err, stdout.String(), stderr.String(), reportPath)
}

func (f *fixture) finish(e *emu, o runOpts, cmd *exec.Cmd, err error, stdout, stderr, reportPath string) result {
	f.t.Helper()
	r := result{Stdout: stdout, Stderr: stderr}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		require.NoError(f.t, err, "run %v", cmd.Args)
	}
	if b, rerr := os.ReadFile(reportPath); rerr == nil {
		r.RawReport = b
		rep, perr := report.Parse(b)
		require.NoError(f.t, perr, "report is not schema-exact:\n%s", b)
		r.Report = &rep
		st, serr := os.Stat(reportPath)
		require.NoError(f.t, serr)
		require.Equal(f.t, os.FileMode(0o600), st.Mode().Perm(), "report mode")
		require.Equal(f.t, testVersion, rep.ToolVersion, "report tool_version")
		// Every written report agrees with the exit code, an exit 3 from a
		// failed output included (the outputs write one ending).
		require.Equal(f.t, vocab.ExitCode(rep.Status, hasFlag(cmd.Args, "--detailed-exit-code")), r.Code,
			"exit code disagrees with report status %s", rep.Status)
	}
	f.scan(e, o, r)
	return r
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// scan fails the test if any canary appears in stdout, stderr or the
// report: plaintext values, ciphertext ("ENC["), the age private key, the
// AWS access key id and secret key,
// ClientRequestTokens (version ids the tool created) and, unless names are
// shown, secret names and document paths.
func (f *fixture) scan(e *emu, o runOpts, r result) {
	f.t.Helper()
	// The age recipient is no canary: it is public (in every committed
	// document's metadata), and a document no key opened names it (SPEC
	// §3.2, TestDecrypt_NoKeyNamesEachKeyAndWhyItFailed).
	canaries := append([]string{f.private, awsSecretKey, "CANARY", "AGE-SECRET-KEY", "ENC[", "AKIDE2E"}, f.Values...)
	if !o.ShowNames {
		canaries = append(canaries, f.Names...)
		canaries = append(canaries, f.Prefix)
	}
	if e != nil {
		for _, s := range e.state().Secrets {
			for _, v := range s.Versions {
				canaries = append(canaries, v.VersionID)
				if v.SecretString != nil {
					canaries = append(canaries, *v.SecretString)
				}
			}
			if !o.ShowNames {
				canaries = append(canaries, s.ARN)
			}
		}
	}
	// Every JSON record carries only the fixed field vocabulary (SPEC §7.3).
	for _, line := range strings.Split(r.Stdout, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		for k := range rec {
			require.True(f.t, logging.Fields[k] || k == "time" || k == "level" || k == "msg",
				"log record has field %q outside the vocabulary: %s", k, line)
		}
	}
	for where, text := range map[string]string{"stdout": r.Stdout, "stderr": r.Stderr, "report": string(r.RawReport)} {
		for _, c := range canaries {
			if c != "" {
				require.NotContains(f.t, text, c, "canary found in %s", where)
			}
		}
	}
}

// running is a CLI process started in the background whose stdout lines
// can be watched.
type running struct {
	f          *fixture
	e          *emu
	o          runOpts
	cmd        *exec.Cmd
	reportPath string
	lines      chan string
	mu         sync.Mutex
	stdout     strings.Builder
	stderr     bytes.Buffer
	copied     chan struct{}
}

func (f *fixture) start(e *emu, o runOpts, args ...string) *running {
	f.t.Helper()
	cmd, reportPath := f.cmd(e, o, args...)
	r := &running{f: f, e: e, o: o, cmd: cmd, reportPath: reportPath, lines: make(chan string, 1024), copied: make(chan struct{})}
	pipe, err := cmd.StdoutPipe()
	require.NoError(f.t, err)
	cmd.Stderr = &r.stderr
	require.NoError(f.t, cmd.Start())
	go func() {
		defer close(r.copied)
		defer close(r.lines)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			r.mu.Lock()
			r.stdout.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			select {
			case r.lines <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	return r
}

// waitFor blocks until a stdout record satisfies match (true) or the
// process's stdout ends (false).
func (r *running) waitFor(match func(rec map[string]any) bool) bool {
	for line := range r.lines {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && match(m) {
			return true
		}
	}
	return false
}

// wait waits for the process and checks its outputs like run does.
func (r *running) wait() result {
	r.f.t.Helper()
	<-r.copied
	err := r.cmd.Wait()
	r.mu.Lock()
	out := r.stdout.String()
	r.mu.Unlock()
	return r.f.finish(r.e, r.o, r.cmd, err, out, r.stderr.String(), r.reportPath)
}
