package emulatorcmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

var firstLine = regexp.MustCompile(`^listening on http://127\.0\.0\.1:[0-9]+$`)

// startRun runs Run in a goroutine and returns the base URL from its first
// stdout line, the stop channel and the exit-code channel.
func startRun(t *testing.T, args ...string) (string, chan os.Signal, chan int) {
	t.Helper()
	pr, pw := io.Pipe()
	stop := make(chan os.Signal, 1)
	code := make(chan int, 1)
	stderr := &lockedBuffer{}
	go func() {
		code <- Run(args, pw, stderr, stop)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line: %v (stderr %s)", err, stderr.String())
	}
	line = strings.TrimSuffix(line, "\n")
	if !firstLine.MatchString(line) {
		t.Fatalf("first line %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return strings.TrimPrefix(line, "listening on "), stop, code
}

func TestRun_ListensPrintsURLAndExitsZeroOnSignal(t *testing.T) {
	url, stop, code := startRun(t, "--listen", "127.0.0.1:0")
	resp, err := http.Get(url + "/_emulator/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	stop <- syscall.SIGTERM
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
}

func TestRun_FlagsSetRegionAccountAndEveryFaultKnob(t *testing.T) {
	url, stop, code := startRun(t, "--listen", "127.0.0.1:0", "--region", "eu-west-3", "--account-id", "999999999999",
		"--seed", "9", "--latency-ms", "1", "--latency-jitter-ms", "2", "--list-lag-ms", "3", "--list-scan-limit", "7", "--error-rate", "0.25",
		"--ambiguous-rate", "0.5", "--ambiguous-kind", "before-apply", "--quotas", "--quota-scale", "4",
		"--script", "CreateSecret:2:error:ThrottlingException", "--script", "DeleteSecret:1:ambiguous-after-apply")
	defer func() { stop <- syscall.SIGINT; <-code }()
	resp, err := http.Get(url + "/_emulator/faults")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var f emulator.Faults
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		t.Fatal(err)
	}
	want := emulator.Faults{Seed: 9, LatencyMS: 1, LatencyJitterMS: 2, ListLagMS: 3, ListScanLimit: 7, ErrorRate: 0.25, AmbiguousRate: 0.5, AmbiguousKind: "before-apply", Quotas: true, QuotaScale: 4,
		Script: []emulator.ScriptedFault{{Operation: "CreateSecret", Nth: 2, Fault: "error:ThrottlingException"}, {Operation: "DeleteSecret", Nth: 1, Fault: "ambiguous-after-apply"}}}
	if got, _ := json.Marshal(f); string(got) != string(must(json.Marshal(want))) {
		t.Fatalf("faults %s\nwant   %s", got, must(json.Marshal(want)))
	}
	// Region and account appear in ARNs (faults off first).
	off, _ := http.NewRequest("PUT", url+"/_emulator/faults", strings.NewReader(`{}`))
	if r, err := http.DefaultClient.Do(off); err != nil || r.StatusCode != 200 {
		t.Fatalf("faults off: %v %v", r, err)
	} else {
		r.Body.Close()
	}
	req, _ := http.NewRequest("POST", url+"/", strings.NewReader(`{"Name":"n","ClientRequestToken":"00000000-0000-4000-8000-000000000001"}`))
	req.Header.Set("X-Amz-Target", "secretsmanager.CreateSecret")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	b, _ := io.ReadAll(r2.Body)
	if !strings.Contains(string(b), "arn:aws:secretsmanager:eu-west-3:999999999999:secret:n-") {
		t.Fatalf("create %s", b)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestRun_BadFlagsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"--nope"},
		{"--error-rate", "2"},
		{"--ambiguous-kind", "often"},
		{"--script", "CreateSecret:x:ambiguous-after-apply"},
		{"--script", "CreateSecret"},
		{"--script", "Nope:1:ambiguous-after-apply"},
		{"--access-key", "AKIAPRODEXAMPLE00001"},
		{"--replica-failure", "Mars"},
		{"--replication-lag-ms", "-1"},
		{"--access-key", "AKIAPRODEXAMPLE00001=12"},
		{"extra-arg"},
	} {
		var out, errb bytes.Buffer
		if c := Run(args, &out, &errb, make(chan os.Signal)); c != 2 || out.Len() != 0 || errb.Len() == 0 {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, c, out.String(), errb.String())
		}
	}
}

func TestRun_CannotListenExit1(t *testing.T) {
	var out, errb bytes.Buffer
	if c := Run([]string{"--listen", "256.0.0.1:bad"}, &out, &errb, make(chan os.Signal)); c != 1 || out.Len() != 0 {
		t.Fatalf("exit %d stdout %q", c, out.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRun_LogFlagLogsCallsWithoutValues(t *testing.T) {
	stderr := &lockedBuffer{}
	pr, pw := io.Pipe()
	stop := make(chan os.Signal, 1)
	code := make(chan int, 1)
	go func() { code <- Run([]string{"--listen", "127.0.0.1:0", "--log"}, pw, stderr, stop); pw.Close() }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	url := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	req, _ := http.NewRequest("POST", url+"/", strings.NewReader(`{"Name":"log-name","SecretString":"TOPSECRETVALUE","ClientRequestToken":"00000000-0000-4000-8000-000000000001"}`))
	req.Header.Set("X-Amz-Target", "secretsmanager.CreateSecret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	stop <- syscall.SIGTERM
	if c := <-code; c != 0 {
		t.Fatalf("exit %d", c)
	}
	logs := stderr.String()
	if !strings.Contains(logs, "operation=CreateSecret") || !strings.Contains(logs, "status=200") {
		t.Fatalf("no call line: %q", logs)
	}
	if strings.Contains(logs, "TOPSECRETVALUE") || strings.Contains(logs, "log-name") {
		t.Fatalf("log leaks the name or value: %q", logs)
	}
}

func TestRun_KMSKeyFlagsRegisterKeysAndFaults(t *testing.T) {
	const id = "1234abcd-12ab-34cd-56ef-1234567890ab"
	url, stop, code := startRun(t, "--listen", "127.0.0.1:0", "--kms-key", id+"=alias/app,alias/team/x", "--kms-key", "0987dcba-09fe-87dc-65ba-ab0987654321",
		"--kms-key-fault", "arn:aws:kms:us-east-1:123456789012:alias/app:disabled")
	defer func() { stop <- syscall.SIGINT; <-code }()
	var d emulator.KMSDump
	getJSON(t, url+"/_emulator/kms", &d)
	if len(d.Keys) != 3 || d.Keys[1].KeyID != id || strings.Join(d.Keys[1].Aliases, ",") != "alias/app,alias/team/x" || len(d.Keys[2].Aliases) != 0 {
		t.Fatalf("keys %+v", d.Keys)
	}
	var f emulator.Faults
	getJSON(t, url+"/_emulator/faults", &f)
	if len(f.KMSKeyFaults) != 1 || f.KMSKeyFaults[0] != (emulator.KMSKeyFault{Key: "arn:aws:kms:us-east-1:123456789012:alias/app", State: "disabled"}) {
		t.Fatalf("faults %+v", f.KMSKeyFaults)
	}
	for _, bad := range [][]string{{"--kms-key", "nope"}, {"--kms-key", id + "=app"}, {"--kms-key-fault", "alias/app"}, {"--kms-key-fault", "alias/app:melted"}} {
		var stderr bytes.Buffer
		if c := Run(append([]string{"--listen", "127.0.0.1:0"}, bad...), io.Discard, &stderr, make(chan os.Signal)); c != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, c, stderr.String())
		}
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func TestRun_AccessKeyFlagMapsKeysToAccounts(t *testing.T) {
	url, stop, code := startRun(t, "--listen", "127.0.0.1:0", "--access-key", "AKIAPRODEXAMPLE00001=111111111111",
		"--access-key", "AKIASTAGINGEXAMPLE01=arn:aws:iam::222222222222:user/ci")
	defer func() { stop <- syscall.SIGINT; <-code }()
	resp, err := http.Get(url + "/_emulator/iam")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got emulator.IAM
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.AccessKeys["AKIAPRODEXAMPLE00001"] != "111111111111" || got.AccessKeys["AKIASTAGINGEXAMPLE01"] != "arn:aws:iam::222222222222:user/ci" {
		t.Fatalf("iam %+v", got)
	}
	// A request signed with the mapped key lands in its account and Region.
	req, _ := http.NewRequest("POST", url+"/", strings.NewReader(`{"Name":"n"}`))
	req.Header.Set("X-Amz-Target", "secretsmanager.CreateSecret")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAPRODEXAMPLE00001/20260101/ap-south-1/secretsmanager/aws4_request, SignedHeaders=host, Signature=00")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	b, _ := io.ReadAll(r2.Body)
	if !strings.Contains(string(b), "arn:aws:secretsmanager:ap-south-1:111111111111:secret:n-") {
		t.Fatalf("create %s", b)
	}
}

func TestRun_ReplicationFlags(t *testing.T) {
	url, stop, code := startRun(t, "--listen", "127.0.0.1:0", "--replication-lag-ms", "2500",
		"--replica-failure", "eu-west-2=Access to KMS is not allowed", "--replica-failure", "ap-south-1")
	defer func() { stop <- syscall.SIGINT; <-code }()
	resp, err := http.Get(url + "/_emulator/faults")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var f emulator.Faults
	if err := json.NewDecoder(resp.Body).Decode(&f); err != nil {
		t.Fatal(err)
	}
	want := []emulator.ReplicaFailure{{Region: "eu-west-2", Message: "Access to KMS is not allowed"}, {Region: "ap-south-1"}}
	if f.ReplicationLagMS != 2500 || len(f.ReplicaFailures) != 2 || f.ReplicaFailures[0] != want[0] || f.ReplicaFailures[1] != want[1] {
		t.Fatalf("faults %+v", f)
	}
}
