package emulator_test

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// The control API under /_emulator/ (issue 2): shapes, effects, and 400s on
// bad input.

func control(t *testing.T, url, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestControl_HealthAndStateShape(t *testing.T) {
	srv, c := start(t)
	if code, body := control(t, srv.URL, "GET", "/_emulator/health", ""); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("health %d %s", code, body)
	}
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("s"), SecretString: aws.String("v"), Description: aws.String("d")}))
	_, body := control(t, srv.URL, "GET", "/_emulator/state", "")
	var m struct {
		Secrets []map[string]json.RawMessage `json:"secrets"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || len(m.Secrets) != 1 {
		t.Fatalf("state %s", body)
	}
	for _, k := range []string{"name", "arn", "description", "kms_key_id", "tags", "deleted_date", "rotation_enabled", "owning_service", "replica_regions", "versions"} {
		if _, ok := m.Secrets[0][k]; !ok {
			t.Fatalf("state lacks %q: %s", k, body)
		}
	}
	var versions []map[string]json.RawMessage
	_ = json.Unmarshal(m.Secrets[0]["versions"], &versions)
	for _, k := range []string{"version_id", "stages", "secret_string", "created_date"} {
		if _, ok := versions[0][k]; !ok {
			t.Fatalf("version lacks %q: %s", k, body)
		}
	}
}

func TestControl_StatsCountCallsPerOperation(t *testing.T) {
	srv, c := start(t)
	create(t, c, "a", "v")
	for range 3 {
		must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("a")}))
	}
	_, body := control(t, srv.URL, "GET", "/_emulator/stats", "")
	var st emulator.Stats
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Calls["CreateSecret"] != 1 || st.Calls["DescribeSecret"] != 3 || st.Throttled == nil || st.Faults == nil {
		t.Fatalf("stats %s", body)
	}
}

// Stats.Retries counts the requests an SDK marked as a retry of a call
// (Amz-Sdk-Request attempt=2 or later); first attempts, requests without
// the header and unreadable headers are not retries. They are in Calls too.
func TestControl_StatsCountSDKRetries(t *testing.T) {
	srv := emulatortest.Start(t)
	for _, h := range []string{"", "attempt=1; max=3", "attempt=2; max=3", "ttl=20261201T000000Z; attempt=3; max=3", "attempt=x", "attempt=-2"} {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"Name":"absent"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Amz-Target", "secretsmanager.DescribeSecret")
		req.Header.Set("Content-Type", "application/x-amz-json-1.1")
		if h != "" {
			req.Header.Set("Amz-Sdk-Request", h)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	st := srv.Stats(t)
	if st.Calls["DescribeSecret"] != 6 || st.Retries["DescribeSecret"] != 2 || len(st.Retries) != 1 {
		t.Fatalf("calls %v retries %v", st.Calls, st.Retries)
	}
}

// Stats.Connections counts accepted TCP connections: a client without
// keep-alive opens one per call; a client with keep-alive reuses its
// connection (Go returns a connection to the idle pool just after the
// answer is read, so a call that follows at once may dial a second one).
func TestControl_StatsCountConnections(t *testing.T) {
	srv, c := start(t)
	create(t, c, "a", "v")
	describe := func(c *secretsmanager.Client) {
		must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("a")}))
	}
	noKeepAlive := srv.Client(t, func(o *secretsmanager.Options) {
		o.HTTPClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	})
	before := srv.Emu.Stats().Connections
	for range 5 {
		describe(noKeepAlive)
	}
	if got := srv.Emu.Stats().Connections - before; got != 5 {
		t.Fatalf("5 calls without keep-alive: %d connections, want 5", got)
	}
	before = srv.Emu.Stats().Connections
	for range 20 {
		describe(c)
	}
	// Reuse, not an exact count: under load a few calls dial anew.
	if got := srv.Emu.Stats().Connections - before; got >= 20 {
		t.Fatalf("20 sequential calls with keep-alive opened %d connections", got)
	}
}

// Stats.MaxInFlight is the largest number of API calls served at once.
func TestControl_StatsMaxInFlight(t *testing.T) {
	srv, c := start(t)
	srv.SetFaults(t, emulator.Faults{LatencyMS: 50})
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { _, _ = c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("a")}) })
	}
	wg.Wait()
	if got := srv.Emu.Stats().MaxInFlight; got < 2 || got > 5 {
		t.Fatalf("5 concurrent calls of 50 ms: max in flight %d", got)
	}
	srv.Reset(t)
	_, _ = c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("a")})
	if got := srv.Emu.Stats().MaxInFlight; got != 1 {
		t.Fatalf("one call after reset: max in flight %d", got)
	}
}

func TestControl_ResetClearsStateAndStats(t *testing.T) {
	srv, c := start(t)
	create(t, c, "a", "v")
	srv.Reset(t)
	if st := srv.State(t); len(st.Secrets) != 0 {
		t.Fatalf("state after reset %+v", st)
	}
	if st := srv.Stats(t); len(st.Calls) != 0 {
		t.Fatalf("stats after reset %+v", st)
	}
	create(t, c, "a", "v")
}

func TestControl_ClockAdvances(t *testing.T) {
	srv, _ := start(t)
	before := srv.Emu.Now()
	code, body := control(t, srv.URL, "POST", "/_emulator/clock", `{"advance_seconds": 86400}`)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if d := srv.Emu.Now().Sub(before); d < 24*time.Hour || d > 24*time.Hour+time.Minute {
		t.Fatalf("advanced %v", d)
	}
}

func TestControl_FaultsRoundTrip(t *testing.T) {
	srv, _ := start(t)
	in := emulator.Faults{Seed: 5, LatencyMS: 1, ListLagMS: 10, ErrorRate: 0.1, AmbiguousRate: 0.2, Quotas: true, QuotaScale: 2,
		Script: []emulator.ScriptedFault{{Operation: "CreateSecret", Nth: 3, Fault: "error:InternalServiceError"}}}
	srv.SetFaults(t, in)
	_, body := control(t, srv.URL, "GET", "/_emulator/faults", "")
	var got emulator.Faults
	if err := json.Unmarshal([]byte(body), &got); err != nil || got.Seed != 5 || got.QuotaScale != 2 || len(got.Script) != 1 || got.Script[0].Nth != 3 {
		t.Fatalf("faults %s", body)
	}
}

func TestControl_BadInputIs400WithMessage(t *testing.T) {
	srv, c := start(t)
	create(t, c, "s", "v")
	cases := []struct{ method, path, body, want string }{
		{"PUT", "/_emulator/faults", `{"error_rate": 2}`, "error_rate"},
		{"PUT", "/_emulator/faults", `{"ambiguous_rate": -1}`, "ambiguous_rate"},
		{"PUT", "/_emulator/faults", `{"latency_ms": -5}`, "latency_ms"},
		{"PUT", "/_emulator/faults", `{"quota_scale": -1}`, "quota_scale"},
		{"PUT", "/_emulator/faults", `{"ambiguous_kind": "sometimes"}`, "ambiguous_kind"},
		{"PUT", "/_emulator/faults", `{"errror_rate": 0.5}`, "unknown field"},
		{"PUT", "/_emulator/faults", `{"seed": "x"}`, "invalid JSON"},
		{"PUT", "/_emulator/faults", `{`, "invalid JSON"},
		{"PUT", "/_emulator/faults", `{"script":[{"operation":"Nope","nth":1,"fault":"ambiguous-after-apply"}]}`, "operation"},
		{"PUT", "/_emulator/faults", `{"script":[{"operation":"CreateSecret","nth":0,"fault":"ambiguous-after-apply"}]}`, "nth"},
		{"PUT", "/_emulator/faults", `{"script":[{"operation":"CreateSecret","nth":1,"fault":"explode"}]}`, "fault"},
		{"PUT", "/_emulator/faults", `{"script":[{"operation":"CreateSecret","nth":1,"fault":"error:"}]}`, "fault"},
		{"POST", "/_emulator/conditions", `{"rotation_enabled": true}`, "name"},
		{"POST", "/_emulator/conditions", `{"name": "missing", "rotation_enabled": true}`, "not found"},
		{"POST", "/_emulator/conditions", `{"name": "s", "replica_regions": ["Mars"]}`, "region"},
		{"POST", "/_emulator/clock", `{}`, "advance_seconds"},
		{"POST", "/_emulator/clock", `{"advance_seconds": -1}`, "advance_seconds"},
		{"POST", "/_emulator/clock", `{"advance_seconds": 1} {}`, "trailing"},
	}
	for _, tc := range cases {
		code, body := control(t, srv.URL, tc.method, tc.path, tc.body)
		if code != 400 || !strings.Contains(body, tc.want) || !strings.Contains(body, `"error"`) {
			t.Errorf("%s %s %s: %d %s (want 400 mentioning %q)", tc.method, tc.path, tc.body, code, body, tc.want)
		}
	}
	if code, _ := control(t, srv.URL, "DELETE", "/_emulator/state", ""); code != 405 {
		t.Errorf("wrong method: %d", code)
	}
	if code, _ := control(t, srv.URL, "GET", "/_emulator/nope", ""); code != 404 {
		t.Errorf("unknown endpoint: %d", code)
	}
	// Nothing changed by the rejected requests.
	if f := srv.Emu.Faults(); f.ErrorRate != 0 || len(f.Script) != 0 {
		t.Fatalf("rejected faults applied: %+v", f)
	}
}

func TestConditions_PutSecretIntoStatesTheToolMustRefuse(t *testing.T) {
	srv, c := start(t)
	out := create(t, c, "app/x", "v")
	srv.SetConditions(t, emulator.Conditions{Name: *out.ARN, RotationEnabled: aws.Bool(true), PendingVersion: aws.Bool(true),
		ReplicaRegions: []string{"eu-west-1", "ap-south-1"}, OwningService: aws.String("rds")})
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app/x")}))
	if d.RotationEnabled == nil || !*d.RotationEnabled || d.OwningService == nil || *d.OwningService != "rds" || len(d.ReplicationStatus) != 2 || *d.PrimaryRegion != "us-east-1" {
		t.Fatalf("describe %+v", d)
	}
	pending := ""
	for id, stages := range d.VersionIdsToStages {
		if slices.Contains(stages, "AWSPENDING") {
			pending = id
		}
	}
	if pending == "" || pending == *out.VersionId {
		t.Fatalf("no separate AWSPENDING version: %v", d.VersionIdsToStages)
	}
	st := srv.State(t).Secrets[0]
	if !st.RotationEnabled || st.OwningService != "rds" || !slices.Equal(st.ReplicaRegions, []string{"eu-west-1", "ap-south-1"}) {
		t.Fatalf("state %+v", st)
	}
	// Clearing works too.
	srv.SetConditions(t, emulator.Conditions{Name: "app/x", RotationEnabled: aws.Bool(false), PendingVersion: aws.Bool(false), ReplicaRegions: []string{}, OwningService: aws.String("")})
	d = must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app/x")}))
	if d.RotationEnabled == nil || *d.RotationEnabled || d.OwningService != nil || len(d.ReplicationStatus) != 0 || len(d.VersionIdsToStages) != 1 {
		t.Fatalf("after clearing %+v", d)
	}
}

func TestConditions_ExtraCurrentStageGivesTwoCurrentVersions(t *testing.T) {
	srv, c := start(t)
	create(t, c, "two", "v")
	srv.SetConditions(t, emulator.Conditions{Name: "two", ExtraCurrentStage: aws.Bool(true)})
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("two")}))
	n := 0
	for _, stages := range d.VersionIdsToStages {
		if slices.Contains(stages, "AWSCURRENT") {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("AWSCURRENT on %d versions: %v", n, d.VersionIdsToStages)
	}
	// A new value repairs it, as AWS's label move would.
	put(t, c, "two", "v2", 5)
	d = must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("two")}))
	if !slices.Equal(d.VersionIdsToStages[*token(5)], []string{"AWSCURRENT"}) {
		t.Fatalf("after put %v", d.VersionIdsToStages)
	}
}

func TestConditions_CurrentPayloadBothOrNeither(t *testing.T) {
	srv, c := start(t)
	create(t, c, "both", "v")
	create(t, c, "neither", "v")
	srv.SetConditions(t, emulator.Conditions{Name: "both", CurrentPayload: aws.String("both")})
	srv.SetConditions(t, emulator.Conditions{Name: "neither", CurrentPayload: aws.String("neither")})
	g := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("both")}))
	if g.SecretString == nil || g.SecretBinary == nil {
		t.Fatalf("both: %+v", g)
	}
	g = must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("neither")}))
	if g.SecretString != nil || g.SecretBinary != nil {
		t.Fatalf("neither: %+v", g)
	}
	if code, body := control(t, srv.URL, "POST", "/_emulator/conditions", `{"name":"both","current_payload":"some"}`); code != 400 {
		t.Fatalf("bad current_payload: %d %s", code, body)
	}
}

// TestControl_UserAgentsRecordsEachOperationsUserAgent: every API request's
// User-Agent header is recorded per operation (the SDK's app id among it),
// counted, listed by GET /_emulator/user-agents and cleared by a reset.
func TestControl_UserAgentsRecordsEachOperationsUserAgent(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t, noRetry, func(o *secretsmanager.Options) { o.AppID = "probe-app-7" })
	create(t, c, "a", "v")
	create(t, c, "b", "v")
	must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	got := emulatortest.Control{URL: srv.URL}.Must(t).UserAgents()
	if len(got.UserAgents) != 2 || got.Dropped != 0 {
		t.Fatalf("want 2 pairs, got %+v", got)
	}
	if got.UserAgents[0].Operation != "CreateSecret" || got.UserAgents[0].Count != 2 || got.UserAgents[1].Operation != "ListSecrets" {
		t.Fatalf("pairs %+v", got.UserAgents)
	}
	for _, ua := range got.UserAgents {
		if !strings.Contains(ua.UserAgent, "app/probe-app-7") {
			t.Fatalf("app id not in the recorded user agent %q", ua.UserAgent)
		}
	}
	if code, body := control(t, srv.URL, "POST", "/_emulator/user-agents", ""); code != http.StatusMethodNotAllowed {
		t.Fatalf("POST user-agents %d %s", code, body)
	}
	control(t, srv.URL, "POST", "/_emulator/reset", "")
	if got := (emulatortest.Control{URL: srv.URL}).Must(t).UserAgents(); len(got.UserAgents) != 0 {
		t.Fatalf("reset kept %+v", got)
	}
}
