package awssm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

var sc = model.Scope{RepositoryID: "acme/app", SourceRoot: "secrets", Prefix: "app"}

func TestListCandidates_PagesAndFiltersOnScope(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	for i := range 205 {
		create(t, c, fmt.Sprintf("app/s%03d", i), "{}", sc.Tags("secrets/x.sops.json"))
	}
	other := model.Scope{RepositoryID: "acme/other", SourceRoot: "secrets", Prefix: "app"}
	create(t, c, "app/theirs", "{}", other.Tags("secrets/x.sops.json"))
	create(t, c, "app/untagged", "{}", nil)
	a := awssm.New(c, awssm.Options{OperationTimeout: 5 * time.Second})
	// Pages asked for: the SDK's own retries (Stats.Retries) are not pages.
	pages := func() int64 { st := srv.Stats(t); return st.Calls["ListSecrets"] - st.Retries["ListSecrets"] }
	before := pages()
	got, err := a.ListCandidates(context.Background(), sc.Digest())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 205 {
		t.Fatalf("got %d candidates, want the 205 of this scope", len(got))
	}
	for _, cand := range got {
		if cand.Name == "app/theirs" || cand.Name == "app/untagged" || !strings.HasPrefix(cand.ARN, "arn:") {
			t.Fatalf("unexpected candidate %+v", cand)
		}
	}
	if n := pages() - before; n != 3 {
		t.Fatalf("ListSecrets calls = %d, want 3 pages of at most 100", n)
	}
}

func TestDescribe_NotFoundIsAnObservation(t *testing.T) {
	srv := emulatortest.Start(t)
	a := awssm.New(srv.Client(t), awssm.Options{})
	o, err := a.Describe(context.Background(), "app/missing")
	if err != nil || o.Exists {
		t.Fatalf("Describe(missing) = %+v, %v; want absent and no error", o, err)
	}
}

func TestDescribe_ReportsTagsStagesAndDeletion(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	arn := create(t, c, "app/db", `{"a":1}`, sc.Tags("secrets/db.sops.json"))
	a := awssm.New(c, awssm.Options{})
	if err := a.Delete(context.Background(), arn, 7); err != nil {
		t.Fatal(err)
	}
	o, err := a.Describe(context.Background(), arn)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Exists || !o.Deleted || o.ARN != arn || o.Name != "app/db" || !o.Owned(sc.Digest()) || len(o.CurrentVersionIDs()) != 1 {
		t.Fatalf("observation = %+v", o)
	}
	if err := a.Restore(context.Background(), arn); err != nil {
		t.Fatal(err)
	}
	if o, _ := a.Describe(context.Background(), arn); o.Deleted {
		t.Fatal("restore must clear the deletion")
	}
}

func TestGetCurrentValues_BatchesAndCrossChecksVersions(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	a := awssm.New(c, awssm.Options{})
	var reqs []engine.ValueRequest
	for i := range 3 {
		name := fmt.Sprintf("app/v%d", i)
		arn := create(t, c, name, fmt.Sprintf(`{"i":%d}`, i), nil)
		o, err := a.Describe(context.Background(), arn)
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, engine.ValueRequest{ID: arn, Name: name, CurrentVersionID: o.CurrentVersionIDs()[0]})
	}
	reqs[2].CurrentVersionID = strings.Repeat("0", 32) // DescribeSecret "said" another version
	before := srv.Stats(t).Calls
	vs, err := a.GetCurrentValues(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	after := srv.Stats(t).Calls
	if after["BatchGetSecretValue"]-before["BatchGetSecretValue"] != 1 || after["GetSecretValue"] != before["GetSecretValue"] {
		t.Fatalf("want exactly one BatchGetSecretValue call; calls before %v after %v", before, after)
	}
	for i := range 2 {
		if !vs[i].HasString || string(vs[i].String) != fmt.Sprintf(`{"i":%d}`, i) || vs[i].StageMismatch || vs[i].VersionID != reqs[i].CurrentVersionID {
			t.Fatalf("value %d = %+v", i, vs[i])
		}
	}
	if !vs[2].StageMismatch {
		t.Fatal("a version other than DescribeSecret's AWSCURRENT must be flagged")
	}
	// A single read uses GetSecretValue by VersionId + AWSCURRENT: a
	// version that no longer holds AWSCURRENT is a mismatch, one that does
	// not exist is missing.
	if _, err := c.PutSecretValue(context.Background(), &secretsmanager.PutSecretValueInput{SecretId: &reqs[0].ID, SecretString: aws.String(`{"new":1}`)}); err != nil {
		t.Fatal(err)
	}
	one, err := a.GetCurrentValues(context.Background(), reqs[:1])
	if err != nil || !one[0].StageMismatch {
		t.Fatalf("single read of the previous version = %+v, %v; want StageMismatch", one, err)
	}
	one, err = a.GetCurrentValues(context.Background(), reqs[2:])
	if err != nil || !one[0].Missing {
		t.Fatalf("single read of an unknown version = %+v, %v; want Missing", one, err)
	}
	if _, err := a.GetCurrentValues(context.Background(), make([]engine.ValueRequest, engine.MaxValueBatch+1)); err == nil {
		t.Fatal("more than 20 ids must be refused")
	}
}

func TestErrors_CarryCodeNeverProviderText(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t, func(o *secretsmanager.Options) { o.RetryMaxAttempts = 1 })
	a := awssm.New(c, awssm.Options{})
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "DescribeSecret", Nth: 1, Fault: "error:AccessDeniedException:User arn:aws:iam::123:user/x is not authorized SECRETTEXT"},
		{Operation: "DescribeSecret", Nth: 2, Fault: "error:InternalServiceError"},
		{Operation: "CreateSecret", Nth: 1, Fault: "ambiguous-before-apply"},
		{Operation: "DescribeSecret", Nth: 3, Fault: "error:SomethingNewException:SECRETTEXT"},
	}})
	ctx := context.Background()
	_, err := a.Describe(ctx, "app/x")
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != "AccessDeniedException" || !e.AccessDenied || e.Fault != engine.FaultClient || e.Ambiguous || e.Operation != "DescribeSecret" || e.RequestID == "" {
		t.Fatalf("access denied → %#v", err)
	}
	if strings.Contains(err.Error(), "SECRETTEXT") || strings.Contains(err.Error(), "arn:") {
		t.Fatalf("provider text leaked: %q", err.Error())
	}
	_, err = a.Describe(ctx, "app/x")
	if !errors.As(err, &e) || e.Code != "InternalServiceError" || e.Fault != engine.FaultServer || !e.Ambiguous {
		t.Fatalf("server fault → %#v", err)
	}
	_, err = a.Create(ctx, engine.CreateRequest{Name: "app/x", Value: []byte("{}"), Token: strings.Repeat("a", 64)})
	if !errors.As(err, &e) || e.Code != awscore.CodeConnection || !e.Ambiguous || e.RequestID != "" {
		t.Fatalf("lost response → %#v", err)
	}
	_, err = a.Describe(ctx, "app/x")
	if !errors.As(err, &e) || e.Code != awscore.CodeUnknown || strings.Contains(err.Error(), "SECRETTEXT") {
		t.Fatalf("unknown code → %#v", err)
	}
}

func TestOperationTimeout_IsAmbiguousAndCancellationIsNot(t *testing.T) {
	srv := emulatortest.Start(t)
	srv.SetFaults(t, emulator.Faults{LatencyMS: 400})
	a := awssm.New(srv.Client(t, func(o *secretsmanager.Options) { o.RetryMaxAttempts = 1 }), awssm.Options{OperationTimeout: 50 * time.Millisecond})
	_, err := a.PutValue(context.Background(), "app/x", []byte("{}"), model.KindJSON, strings.Repeat("b", 64))
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != awscore.CodeTimeout || !e.Ambiguous {
		t.Fatalf("per-call timeout → %#v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.Describe(ctx, "app/x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled run must surface context.Canceled, got %#v", err)
	}
}

func TestCreate_TagsInTheSameRequestAndTokenIsTheVersion(t *testing.T) {
	srv := emulatortest.Start(t)
	a := awssm.New(srv.Client(t), awssm.Options{})
	tok := strings.Repeat("c", 64)
	res, err := a.Create(context.Background(), engine.CreateRequest{Name: "app/db", Value: []byte(`{"a":1}`), Tags: sc.Tags("secrets/db.sops.json"), Token: tok})
	if err != nil || res.VersionID != tok {
		t.Fatalf("create = %+v, %v", res, err)
	}
	st := srv.Stats(t)
	if st.Calls["TagResource"] != 0 {
		t.Fatal("tags must be written in the CreateSecret request, not by TagResource")
	}
	s := srv.State(t).Secrets[0]
	if s.Tags[model.TagScope] != sc.Digest() || len(s.Versions) != 1 || s.Versions[0].VersionID != tok {
		t.Fatalf("state = %+v", s)
	}
}

// TestGetCurrentValues_BatchDeniedFallsBackToSingleReads: a least-privilege
// policy without BatchGetSecretValue on "*" still works, one read per
// secret, and the batch is not retried.
func TestGetCurrentValues_BatchDeniedFallsBackToSingleReads(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	a := awssm.New(c, awssm.Options{})
	var reqs []engine.ValueRequest
	for i := range 3 {
		name := fmt.Sprintf("app/v%d", i)
		arn := create(t, c, name, fmt.Sprintf(`{"i":%d}`, i), nil)
		o, _ := a.Describe(context.Background(), arn)
		reqs = append(reqs, engine.ValueRequest{ID: arn, Name: name, CurrentVersionID: o.CurrentVersionIDs()[0]})
	}
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "BatchGetSecretValue", Nth: 1, Fault: "error:AccessDeniedException"}}})
	for range 2 {
		vs, err := a.GetCurrentValues(context.Background(), reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			if string(v.String) != fmt.Sprintf(`{"i":%d}`, i) || v.StageMismatch {
				t.Fatalf("value %d = %+v", i, v)
			}
		}
	}
	calls := srv.Stats(t).Calls
	if calls["BatchGetSecretValue"] != 1 || calls["GetSecretValue"] != 6 {
		t.Fatalf("calls = %v; want one denied batch, then single reads", calls)
	}
}

// TestListCandidates_FollowsEmptyPagesWithNextToken: a filtered page may
// come back short or empty with a NextToken; discovery keeps paging.
func TestListCandidates_FollowsEmptyPagesWithNextToken(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	for i := range 30 {
		tags := sc.Tags("secrets/x.sops.json")
		if i%3 != 0 {
			tags = nil // not ours: the scan passes over them
		}
		create(t, c, fmt.Sprintf("app/s%02d", i), "{}", tags)
	}
	srv.SetFaults(t, emulator.Faults{ListScanLimit: 4})
	got, err := awssm.New(c, awssm.Options{}).ListCandidates(context.Background(), sc.Digest())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 {
		t.Fatalf("got %d candidates, want 10", len(got))
	}
	if pages := srv.Stats(t).Calls["ListSecrets"]; pages < 8 {
		t.Fatalf("ListSecrets calls = %d; the scan limit should have forced short pages", pages)
	}
}

// TestClientSideTimeoutIsAClientFault (issue 15 finding 6): the operation
// timeout fires in our client, so the fault is the client's; it was logged
// as fault_class "server". It stays ambiguous for a write.
func TestClientSideTimeoutIsAClientFault(t *testing.T) {
	srv := emulatortest.Start(t)
	srv.SetFaults(t, emulator.Faults{LatencyMS: 400})
	a := awssm.New(srv.Client(t, func(o *secretsmanager.Options) { o.RetryMaxAttempts = 1 }), awssm.Options{OperationTimeout: 50 * time.Millisecond})
	_, err := a.Describe(context.Background(), "app/x")
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != awscore.CodeTimeout || e.Fault != engine.FaultClient || !e.Ambiguous {
		t.Fatalf("client-side timeout → %#v; want Timeout, client fault, ambiguous", err)
	}
}

// TestThrottledReadsAreResentUntilAnswered: a throttled read was not
// executed; the adapter resends it after its family's next turn, however
// many times (the SDK's standard retryer gave up after 3 attempts), and
// counts the throttles in the run's pace. List pages keep their NextToken.
func TestThrottledReadsAreResentUntilAnswered(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	var reqs []engine.ValueRequest
	for i := range 150 {
		arn := create(t, c, fmt.Sprintf("app/s%03d", i), fmt.Sprintf(`{"i":%d}`, i), sc.Tags("secrets/x.sops.json"))
		if i < 2 {
			reqs = append(reqs, engine.ValueRequest{ID: arn, Name: fmt.Sprintf("app/s%03d", i)})
		}
	}
	p := pace.New(pace.SystemClock{}, pace.DefaultLimits())
	a := awssm.New(c, awssm.Options{OperationTimeout: 5 * time.Second, Pace: p})
	for i := range reqs {
		o, err := a.Describe(context.Background(), reqs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		reqs[i].CurrentVersionID = o.CurrentVersionIDs()[0]
	}
	const thr = "error:ThrottlingException"
	var s []emulator.ScriptedFault
	for n := int64(1); n <= 5; n++ {
		s = append(s, emulator.ScriptedFault{Operation: "DescribeSecret", Nth: n, Fault: thr})
	}
	s = append(s, emulator.ScriptedFault{Operation: "ListSecrets", Nth: 2, Fault: thr},
		emulator.ScriptedFault{Operation: "BatchGetSecretValue", Nth: 1, Fault: thr},
		emulator.ScriptedFault{Operation: "GetSecretValue", Nth: 1, Fault: thr})
	srv.SetFaults(t, emulator.Faults{Script: s})
	before := srv.Stats(t)

	if o, err := a.Describe(context.Background(), "app/s000"); err != nil || !o.Exists {
		t.Fatalf("describe after 5 throttles = %+v, %v", o, err)
	}
	if got, err := a.ListCandidates(context.Background(), sc.Digest()); err != nil || len(got) != 150 {
		t.Fatalf("list = %d candidates, %v", len(got), err)
	}
	if vs, err := a.GetCurrentValues(context.Background(), reqs); err != nil || string(vs[1].String) != `{"i":1}` {
		t.Fatalf("batch = %+v, %v", vs, err)
	}
	if vs, err := a.GetCurrentValues(context.Background(), reqs[:1]); err != nil || string(vs[0].String) != `{"i":0}` {
		t.Fatalf("single read = %+v, %v", vs, err)
	}
	// Calls our loop made: the emulator counts every attempt and, of those,
	// the SDK's own retries (amz-sdk-request attempt > 1). The SDK may retry
	// a connection error on a loaded machine (CI saw ListSecrets 4 once);
	// that is not a resend of a throttled read, so it is not counted here.
	st := srv.Stats(t)
	for op, want := range map[string]int64{"DescribeSecret": 6, "ListSecrets": 3, "BatchGetSecretValue": 2, "GetSecretValue": 2} {
		got := (st.Calls[op] - before.Calls[op]) - (st.Retries[op] - before.Retries[op])
		if got != want {
			t.Errorf("%s calls made by the adapter = %d, want %d (SDK retries %d)", op, got, want, st.Retries[op]-before.Retries[op])
		}
	}
	if got := p.Stats().Throttled; got != 8 {
		t.Errorf("throttled calls counted = %d, want 8", got)
	}
}

// TestThrottledWriteIsReturnedOnceNeverAmbiguous: the SDK does not retry a
// throttled write (the engine resends it after a new turn and a new
// precondition); the error says throttled, not ambiguous, for every kind.
func TestThrottledWriteIsReturnedOnceNeverAmbiguous(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	arn := create(t, c, "app/db", "{}", nil)
	a := awssm.New(c, awssm.Options{})
	const thr = "error:ThrottlingException"
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "CreateSecret", Nth: 1, Fault: thr}, {Operation: "PutSecretValue", Nth: 1, Fault: thr},
		{Operation: "DeleteSecret", Nth: 1, Fault: thr}, {Operation: "RestoreSecret", Nth: 1, Fault: thr},
	}})
	ctx := context.Background()
	before := srv.Stats(t).Calls
	errs := map[string]error{}
	_, errs["CreateSecret"] = a.Create(ctx, engine.CreateRequest{Name: "app/new", Value: []byte("{}"), Token: strings.Repeat("a", 64)})
	_, errs["PutSecretValue"] = a.PutValue(ctx, arn, []byte(`{"a":1}`), model.KindJSON, strings.Repeat("b", 64))
	errs["DeleteSecret"] = a.Delete(ctx, arn, 7)
	errs["RestoreSecret"] = a.Restore(ctx, arn)
	calls := srv.Stats(t).Calls
	for op, err := range errs {
		var e *engine.Error
		if !errors.As(err, &e) || !e.Throttled || e.Ambiguous || e.Code != "ThrottlingException" || e.Fault != engine.FaultClient {
			t.Errorf("%s throttled → %#v", op, err)
		}
		if n := calls[op] - before[op]; n != 1 {
			t.Errorf("%s calls = %d, want 1 (the SDK must not retry a throttle)", op, n)
		}
	}
}

// TestWholeValues_ExactBytesInTheirPayloadField: a text value goes in
// SecretString and a binary one in SecretBinary, byte for byte (CRLF, a
// trailing newline, NUL and bytes that are not UTF-8), on create and on
// PutSecretValue, and the value reads back into the field it was written
// to; switching kind writes the other field only.
func TestWholeValues_ExactBytesInTheirPayloadField(t *testing.T) {
	srv := emulatortest.Start(t)
	a := awssm.New(srv.Client(t), awssm.Options{})
	ctx := context.Background()
	text := []byte("-----BEGIN CERTIFICATE-----\r\nMIIB\r\n-----END CERTIFICATE-----\r\n\n")
	bin := []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0xff, '\r', '\n'}
	res, err := a.Create(ctx, engine.CreateRequest{Name: "app/tls", Value: text, Kind: model.KindText, Token: strings.Repeat("c", 64)})
	if err != nil {
		t.Fatal(err)
	}
	read := func(versionID string) plan.CurrentValue {
		t.Helper()
		v, err := a.GetCurrentValues(ctx, []engine.ValueRequest{{ID: res.ARN, Name: "app/tls", CurrentVersionID: versionID}})
		if err != nil || len(v) != 1 {
			t.Fatalf("read = %+v, %v", v, err)
		}
		return v[0]
	}
	if v := read(res.VersionID); !v.HasString || v.HasBinary || string(v.String) != string(text) {
		t.Fatalf("text read back as %+v", v)
	}
	w, err := a.PutValue(ctx, res.ARN, bin, model.KindBinary, strings.Repeat("d", 64))
	if err != nil {
		t.Fatal(err)
	}
	if v := read(w.VersionID); v.HasString || !v.HasBinary || string(v.Binary) != string(bin) {
		t.Fatalf("binary read back as %+v", v)
	}
	s := srv.State(t).Secrets[0]
	if len(s.Versions) != 2 || s.Versions[0].SecretString == nil || *s.Versions[0].SecretString != string(text) ||
		s.Versions[1].SecretString != nil || string(s.Versions[1].SecretBinary) != string(bin) {
		t.Fatalf("stored versions = %+v", s.Versions)
	}
}
