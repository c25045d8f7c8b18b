package desired

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// The AWS KMS fixture (testdata/kms/kms.sops.json) is encrypted to a key of
// local-kms (github.com/nsmithuk/local-kms) seeded from testdata/kms/seed.yaml.
const (
	kmsRegion = "eu-west-2"
	kmsKeyARN = "arn:aws:kms:eu-west-2:111122223333:key/6a3c1d52-4c8e-4a51-9d0e-2f7b8e1c5a90"
)

// localKMSBinary finds local-kms: $LOCAL_KMS_BIN, PATH, or $(go env
// GOPATH)/bin. Without it the KMS tests skip, except in CI (CI set), where
// .ci/run installs it and its absence is a failure.
func localKMSBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LOCAL_KMS_BIN"); p != "" {
		return p
	}
	if p, err := exec.LookPath("local-kms"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(string(regexp.MustCompile(`\s+$`).ReplaceAll(out, nil)), "bin", "local-kms")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := "local-kms binary not found (install: go install github.com/nsmithuk/local-kms@v0.0.0-20260228092603-2a5e92d09ab6)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + "; CI must install it")
	}
	t.Skip(msg)
	return ""
}

var kmsStarted = regexp.MustCompile(`Local KMS started on [0-9.]+:([0-9]+)`)

// startLocalKMS starts local-kms on a kernel-chosen port with the given seed
// file and returns its loopback endpoint and a stop function (idempotent).
// Readiness is the "started" log line, printed after the socket is bound.
// local-kms has no bind-address option (it binds all interfaces); clients
// here only ever use 127.0.0.1.
func startLocalKMS(t *testing.T, bin, seed string) (endpoint string, stop func()) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = []string{"PORT=0", "KMS_REGION=" + kmsRegion, "KMS_ACCOUNT_ID=111122223333",
		"KMS_SEED_PATH=" + seed, "KMS_DATA_PATH=" + t.TempDir()}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("start local-kms: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); pw.Close(); close(exited) }()
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := kmsStarted.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case port <- m[1]:
				default:
				}
			}
		}
		close(port)
	}()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cmd.Process.Kill()
			<-exited
		}
	}
	t.Cleanup(stop)
	select {
	case p, ok := <-port:
		if !ok {
			t.Fatal("local-kms exited before it started listening")
		}
		return "http://127.0.0.1:" + p, stop
	case <-time.After(30 * time.Second):
		t.Fatal("local-kms did not report its port within 30s")
	}
	return "", nil
}

// useKMSEndpoint points the AWS SDK inside SOPS at endpoint with dummy
// static credentials and a single attempt per call.
func useKMSEndpoint(t *testing.T, endpoint string) {
	t.Setenv("AWS_ENDPOINT_URL_KMS", endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDLOCALKMSTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local-kms-test-secret")
	t.Setenv("AWS_REGION", kmsRegion)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
}

func kmsRepo(t *testing.T) string {
	dir, _ := newRepo(t, map[string][]byte{"secrets/kms.sops.json": fixture(t, "kms/kms.sops.json")})
	return dir
}

// TestDecryptKeyService_LocalKMS shows decrypt:key-service for real: the
// same AWS KMS–encrypted fixture decrypts against a running local KMS, fails
// with key-service when the KMS does not know the key (a refusal), and again
// when the KMS is stopped (unreachable).
func TestDecryptKeyService_LocalKMS(t *testing.T) {
	bin := localKMSBinary(t)
	seed, _ := filepath.Abs("testdata/kms/seed.yaml")
	dir := kmsRepo(t)

	endpoint, stop := startLocalKMS(t, bin, seed)
	useKMSEndpoint(t, endpoint)
	st, err := Load(context.Background(), baseOptions(dir))
	if err != nil {
		t.Fatalf("decrypt against local KMS: %v", err)
	}
	if len(st.Secrets) != 1 || string(st.Secrets[0].Value) != `{"token":"kms-FIXTURE"}` {
		t.Fatalf("unexpected state %+v", st.Secrets)
	}

	stop()
	_, err = Load(context.Background(), baseOptions(dir))
	assertClass(t, err, diag.DecryptKeyService, 1)

	emptySeed := filepath.Join(t.TempDir(), "seed.yaml")
	os.WriteFile(emptySeed, []byte("Keys: {}\n"), 0o644)
	endpoint2, _ := startLocalKMS(t, bin, emptySeed)
	useKMSEndpoint(t, endpoint2)
	_, err = Load(context.Background(), baseOptions(dir))
	assertClass(t, err, diag.DecryptKeyService, 1)
}

// TestLoadReturnsPromptlyWhenCancelledDuringKeyServiceCall: a KMS that
// accepts the request and never answers must not hold the run hostage.
func TestLoadReturnsPromptlyWhenCancelledDuringKeyServiceCall(t *testing.T) {
	hit := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hit <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.Error(w, "released", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs before srv.Close
	useKMSEndpoint(t, srv.URL)
	dir := kmsRepo(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan error, 1)
	go func() {
		_, err := Load(ctx, baseOptions(dir))
		res <- err
	}()
	select {
	case <-hit:
	case err := <-res:
		t.Fatalf("Load returned before calling KMS: %v", err)
	}
	cancel()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		assertClass(t, err, diag.Interrupted, 0)
	case <-time.After(10 * time.Second):
		t.Fatal("Load did not return after cancellation while a KMS call was in flight")
	}
}

// generateKMSFixture encrypts testdata/plain/kms.json to the seeded local
// KMS key with the sops CLI.
func generateKMSFixture(t *testing.T, sopsBin, lkms string) {
	seed, _ := filepath.Abs("testdata/kms/seed.yaml")
	endpoint, _ := startLocalKMS(t, lkms, seed)
	plain, _ := filepath.Abs("testdata/plain/kms.json")
	out := runSOPS(t, sopsBin, []string{
		"AWS_ENDPOINT_URL_KMS=" + endpoint, "AWS_ACCESS_KEY_ID=AKIDLOCALKMSTEST",
		"AWS_SECRET_ACCESS_KEY=local-kms-test-secret", "AWS_REGION=" + kmsRegion, "AWS_EC2_METADATA_DISABLED=true",
	}, "--encrypt", "--kms", kmsKeyARN, "--input-type", "json", "--output-type", "json", plain)
	writeFixture(t, "kms/kms.sops.json", out)
}

// TestKeyServiceThatNeverAnswersIsKeyService: a KMS endpoint that accepts
// the connection and never answers ends in decrypt:key-service when the
// key-service bound (--operation-timeout) runs out, not at the whole run
// timeout. The listener is loopback TCP that accepts and then reads
// forever; the bound runs on an injected clock that fires only once the
// connection is accepted, so the premise (the call reached the service)
// holds however slowly the SDK gets there, and no wall time is assumed.
func TestKeyServiceThatNeverAnswersIsKeyService(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{})
	var once sync.Once
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			once.Do(func() { close(accepted) })
			go io.Copy(io.Discard, c) // read the request, never answer
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	useKMSEndpoint(t, "http://"+ln.Addr().String())
	opts := baseOptions(kmsRepo(t))
	opts.KeyServiceTimeout = time.Hour // far past the 60 s guard below: only the injected clock ends the call
	var (
		boundsMu sync.Mutex
		bounds   []time.Duration
	)
	// The bound "passes" once the service holds the connection.
	afterFunc := func(d time.Duration, f func()) func() bool {
		boundsMu.Lock()
		bounds = append(bounds, d)
		boundsMu.Unlock()
		stopped := make(chan struct{})
		var stopOnce sync.Once
		go func() {
			select {
			case <-accepted:
				f()
			case <-stopped:
			}
		}()
		return func() bool { stopOnce.Do(func() { close(stopped) }); return true }
	}
	res := make(chan error, 1)
	go func() {
		_, err := load(context.Background(), opts, nil, nil, afterFunc)
		res <- err
	}()
	select {
	case err := <-res:
		assertClass(t, err, diag.DecryptKeyService, 1)
		if !strings.Contains(err.Error(), "did not answer within --operation-timeout") {
			t.Fatalf("the message must say the service did not answer: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Load did not end within 60s although the key-service bound had passed")
	}
	select {
	case <-accepted:
	default:
		t.Fatal("premise: the KMS client never connected to the listener")
	}
	boundsMu.Lock()
	defer boundsMu.Unlock()
	if len(bounds) == 0 {
		t.Fatal("no key-service call was bounded")
	}
	for _, d := range bounds {
		if d != opts.KeyServiceTimeout {
			t.Fatalf("a key-service call was bounded by %v, want --operation-timeout %v", d, opts.KeyServiceTimeout)
		}
	}
}

// TestRemoteKeyServiceCallGivesBackItsCPUSlot: at most GOMAXPROCS
// documents decrypt on the CPU at once, but one waiting on a remote key
// service gives its slot back for the call: GOMAXPROCS+1 documents whose
// only key is AWS KMS all have their KMS call in flight together. The KMS
// answers only once they are, and no call has a bound here, so a
// decryption that kept its slot while waiting would leave the last one
// queued for ever (the test fails after 30 s instead).
func TestRemoteKeyServiceCallGivesBackItsCPUSlot(t *testing.T) {
	n := runtime.GOMAXPROCS(0) + 1
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(all) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived++
		if arrived == n {
			release()
		}
		mu.Unlock()
		select {
		case <-all:
		case <-r.Context().Done():
		}
		http.Error(w, "answered once every call was in flight", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	useKMSEndpoint(t, srv.URL)
	files := map[string][]byte{}
	for i := range n {
		// Distinct blobs (trailing spaces), each decrypted on its own.
		files[fmt.Sprintf("secrets/kms%d.sops.json", i)] = append(fixture(t, "kms/kms.sops.json"), bytes.Repeat([]byte(" "), i)...)
	}
	dir, _ := newRepo(t, files)
	o := baseOptions(dir)
	o.Concurrency = n
	o.KeyServiceTimeout = time.Hour
	never := func(time.Duration, func()) func() bool { return func() bool { return true } }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan error, 1)
	go func() {
		_, err := load(ctx, o, nil, nil, never)
		res <- err
	}()
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		mu.Lock()
		got := arrived
		mu.Unlock()
		release() // answer the calls, so the load and the server end
		cancel()
		t.Fatalf("only %d of %d KMS calls were in flight together after 30 s: a document waiting on KMS kept its CPU slot", got, n)
	}
	var ds diag.Diagnostics
	if err := <-res; !errors.As(err, &ds) || len(ds) != n {
		t.Fatalf("err = %v, want %d decrypt:key-service diagnostics", err, n)
	}
	for _, d := range ds {
		if d.Class != diag.DecryptKeyService {
			t.Fatalf("class %s, want %s", d.Class, diag.DecryptKeyService)
		}
	}
}
