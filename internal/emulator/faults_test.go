package emulator_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// One test per fault knob, each proving the knob does what it says.

func TestFault_LatencyDelaysEveryCall(t *testing.T) {
	srv, c := start(t)
	srv.SetFaults(t, emulator.Faults{LatencyMS: 40, LatencyJitterMS: 10})
	began := time.Now()
	_, err := c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{})
	if err != nil {
		t.Fatal(err)
	}
	// A lower bound only: the emulator sleeps at least latency_ms.
	if d := time.Since(began); d < 40*time.Millisecond {
		t.Fatalf("call took %v, want >= 40ms", d)
	}
	if n := srv.Stats(t).Faults["latency"]; n != 1 {
		t.Fatalf("latency faults %d", n)
	}
}

func TestFault_ListLagHidesFreshSecretsAndShowsDeletedOnes(t *testing.T) {
	srv, c := start(t)
	create(t, c, "old", "v")
	srv.AdvanceClock(t, 2*time.Minute)
	srv.SetFaults(t, emulator.Faults{ListLagMS: 60_000})
	create(t, c, "fresh", "v")
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{}); !slices.Equal(got, []string{"old"}) {
		t.Fatalf("lagged list %v, want [old]", got)
	}
	must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("fresh")}))
	must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("fresh")}))

	srv.AdvanceClock(t, 30*time.Second)
	must[*secretsmanager.DeleteSecretOutput](t)(c.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: aws.String("old"), ForceDeleteWithoutRecovery: aws.Bool(true)}))
	must[*secretsmanager.TagResourceOutput](t)(c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("fresh"), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}))
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{}); !slices.Equal(got, []string{"old"}) {
		t.Fatalf("lagged list after delete %v, want [old]", got)
	}
	srv.AdvanceClock(t, 30*time.Second)
	out := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	if len(out.SecretList) != 2 || *out.SecretList[1].Name != "fresh" || len(out.SecretList[1].Tags) != 0 {
		t.Fatalf("at +60s want old and untagged fresh, got %+v", out.SecretList)
	}
	srv.AdvanceClock(t, 30*time.Second)
	out = must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	if len(out.SecretList) != 1 || *out.SecretList[0].Name != "fresh" || len(out.SecretList[0].Tags) != 1 {
		t.Fatalf("at +90s want tagged fresh only, got %+v", out.SecretList)
	}
	// A tag filter also reads the past: the tag added at +30s is not yet visible at +60s.
	srv.SetFaults(t, emulator.Faults{ListLagMS: 60_000})
	must[*secretsmanager.UntagResourceOutput](t)(c.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: aws.String("fresh"), TagKeys: []string{"k"}}))
	if got := listNames(t, c, &secretsmanager.ListSecretsInput{Filters: []types.Filter{f(types.FilterNameStringTypeTagKey, "k")}}); !slices.Equal(got, []string{"fresh"}) {
		t.Fatalf("lagged tag filter %v", got)
	}
}

func TestFault_QuotasThrottleWithRateExceededAndRefill(t *testing.T) {
	srv, c := start(t)
	// CreateSecret: 50/s × 0.0002 = one request per 100 s, burst 1.
	srv.SetFaults(t, emulator.Faults{Quotas: true, QuotaScale: 0.0002})
	create(t, c, "a", "v")
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("b"), SecretString: aws.String("v")})
	wantAPIError(t, err, "ThrottlingException", "Rate exceeded")
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != 400 {
		t.Fatalf("throttle status: %v", err)
	}
	// DescribeSecret and GetSecretValue share a family: 10,000/s × 0.0002 = 2/s, burst 2.
	must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("a")}))
	must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("a")}))
	_, err = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("a")})
	wantCode(t, err, "ThrottlingException")
	srv.AdvanceClock(t, 100*time.Second)
	create(t, c, "b", "v")
	st := srv.Stats(t)
	if st.Throttled["CreateSecret"] != 1 || st.Throttled["GetSecretValue"] != 1 || st.Calls["CreateSecret"] != 3 {
		t.Fatalf("stats %+v", st)
	}
}

func TestFault_QuotasOffByDefault(t *testing.T) {
	srv, c := start(t)
	for i := range 60 {
		create(t, c, "s"+pad12(i), "v")
	}
	if n := len(srv.Stats(t).Throttled); n != 0 {
		t.Fatalf("throttled without quotas: %v", srv.Stats(t).Throttled)
	}
}

func TestFault_ErrorRateAnswersInternalServiceErrorWithoutApplying(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t, func(o *secretsmanager.Options) { o.RetryMaxAttempts = 2 })
	srv.SetFaults(t, emulator.Faults{ErrorRate: 1})
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("e"), SecretString: aws.String("v")})
	var ise *types.InternalServiceError
	if !errors.As(err, &ise) {
		t.Fatalf("want InternalServiceError, got %v", err)
	}
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != 500 {
		t.Fatalf("status: %v", err)
	}
	st := srv.Stats(t)
	if st.Calls["CreateSecret"] != 2 || st.Faults["error:InternalServiceError"] != 2 {
		t.Fatalf("the SDK retries a 500: stats %+v", st)
	}
	if n := len(srv.State(t).Secrets); n != 0 {
		t.Fatalf("error fault applied the write: %d secrets", n)
	}
}

// outcomes runs n DescribeSecret calls and records which failed.
func outcomes(t *testing.T, seed int64) []bool {
	srv, c := start(t)
	create(t, c, "x", "v")
	srv.SetFaults(t, emulator.Faults{Seed: seed, ErrorRate: 0.5})
	var out []bool
	for range 40 {
		_, err := c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("x")})
		out = append(out, err != nil)
	}
	return out
}

func TestFault_SeedMakesFaultsReproducible(t *testing.T) {
	a, b, other := outcomes(t, 42), outcomes(t, 42), outcomes(t, 43)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different outcomes:\n%v\n%v", a, b)
	}
	if slices.Equal(a, other) {
		t.Fatal("different seeds gave identical outcomes")
	}
	failed := 0
	for _, x := range a {
		if x {
			failed++
		}
	}
	if failed < 8 || failed > 32 {
		t.Fatalf("error_rate 0.5 failed %d of 40", failed)
	}
	// ARN suffixes follow the seed too.
	arn := func() string {
		srv, c := start(t)
		srv.SetFaults(t, emulator.Faults{Seed: 7})
		return *create(t, c, "n", "v").ARN
	}
	if x, y := arn(), arn(); x != y {
		t.Fatalf("ARNs differ under one seed: %s %s", x, y)
	}
}

func TestFault_AmbiguousAfterApply_CallFailsYetStateHoldsWrite(t *testing.T) {
	srv, c := start(t) // one attempt: the SDK does not retry
	srv.SetFaults(t, emulator.Faults{AmbiguousRate: 1, AmbiguousKind: "after-apply"})
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("amb"), SecretString: aws.String("v")})
	if err == nil {
		t.Fatal("ambiguous call succeeded")
	}
	var rse *smithyhttp.RequestSendError
	if !errors.As(err, &rse) {
		t.Fatalf("want a connection-level RequestSendError, got %T %v", err, err)
	}
	st := srv.State(t)
	if len(st.Secrets) != 1 || st.Secrets[0].Name != "amb" {
		t.Fatalf("write not applied: %+v", st)
	}
	if n := srv.Stats(t).Faults["ambiguous-after-apply"]; n != 1 {
		t.Fatalf("fault count %d", n)
	}
	// Reads are never made ambiguous by the rate.
	must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("amb")}))
}

func TestFault_AmbiguousBeforeApply_CallFailsAndNothingChanges(t *testing.T) {
	srv, c := start(t)
	srv.SetFaults(t, emulator.Faults{AmbiguousRate: 1, AmbiguousKind: "before-apply"})
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("amb"), SecretString: aws.String("v")})
	var rse *smithyhttp.RequestSendError
	if !errors.As(err, &rse) {
		t.Fatalf("want RequestSendError, got %v", err)
	}
	if n := len(srv.State(t).Secrets); n != 0 {
		t.Fatalf("before-apply applied the write: %d secrets", n)
	}
}

func TestFault_AmbiguousMixedUsesBothKinds(t *testing.T) {
	srv, c := start(t)
	srv.SetFaults(t, emulator.Faults{Seed: 1, AmbiguousRate: 1})
	for i := range 30 {
		_, _ = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("m" + pad12(i)), SecretString: aws.String("v")})
	}
	st := srv.Stats(t)
	after, before := st.Faults["ambiguous-after-apply"], st.Faults["ambiguous-before-apply"]
	if after+before != 30 || after == 0 || before == 0 {
		t.Fatalf("after %d before %d", after, before)
	}
	if n := int64(len(srv.State(t).Secrets)); n != after {
		t.Fatalf("%d secrets, %d applied faults", n, after)
	}
}

// What the real SDK does with a lost response (documented in
// docs/emulator.md): its standard retryer treats the closed connection as a
// retryable connection error and re-sends the same request with the same
// ClientRequestToken, for non-idempotent operations too.
func TestFault_AmbiguousWithSDKRetries_CreateConvergesDeleteSurfacesInvalidRequest(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t) // default retryer, 3 attempts
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "CreateSecret", Nth: 1, Fault: "ambiguous-after-apply"},
		{Operation: "DeleteSecret", Nth: 1, Fault: "ambiguous-after-apply"},
		{Operation: "PutSecretValue", Nth: 1, Fault: "ambiguous-before-apply"},
	}})
	out, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("r"), SecretString: aws.String("v")})
	if err != nil {
		t.Fatalf("retried create with the same token should succeed: %v", err)
	}
	put, err := c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("r"), SecretString: aws.String("v2")})
	if err != nil {
		t.Fatalf("retried put: %v", err)
	}
	_, err = c.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: aws.String("r"), RecoveryWindowInDays: aws.Int64(7)})
	wantAPIError(t, err, "InvalidRequestException", msgMarked)
	st := srv.State(t)
	if len(st.Secrets) != 1 || len(st.Secrets[0].Versions) != 2 || st.Secrets[0].DeletedDate == nil || st.Secrets[0].Versions[0].VersionID != *out.VersionId || st.Secrets[0].Versions[1].VersionID != *put.VersionId {
		t.Fatalf("state %+v", st)
	}
	if calls := srv.Stats(t).Calls; calls["CreateSecret"] != 2 || calls["PutSecretValue"] != 2 || calls["DeleteSecret"] != 2 {
		t.Fatalf("calls %v", calls)
	}
	// Each second request was the SDK's retry (Amz-Sdk-Request: attempt=2).
	if r := srv.Stats(t).Retries; len(r) != 3 || r["CreateSecret"] != 1 || r["PutSecretValue"] != 1 || r["DeleteSecret"] != 1 {
		t.Fatalf("retries %v", r)
	}
}

func TestFault_ScriptedNthCallGetsTheFault(t *testing.T) {
	srv, c := start(t)
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "GetSecretValue", Nth: 2, Fault: "error:ThrottlingException"},
		{Operation: "GetSecretValue", Nth: 3, Fault: "error:AccessDeniedException:not allowed here"},
		{Operation: "CreateSecret", Nth: 2, Fault: "error:LimitExceededException"},
	}})
	create(t, c, "s", "v")
	must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("s")}))
	_, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("s")})
	wantAPIError(t, err, "ThrottlingException", "Rate exceeded")
	_, err = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("s")})
	wantAPIError(t, err, "AccessDeniedException", "not allowed here")
	must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("s")}))
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("t"), SecretString: aws.String("v")})
	var le *types.LimitExceededException
	if !errors.As(err, &le) {
		t.Fatalf("want typed LimitExceededException, got %v", err)
	}
	st := srv.Stats(t)
	if st.Faults["error:ThrottlingException"] != 1 || st.Faults["error:AccessDeniedException"] != 1 || st.Faults["error:LimitExceededException"] != 1 {
		t.Fatalf("fault stats %v", st.Faults)
	}
}

func TestFault_ListScanLimitGivesShortAndEmptyPagesWithTokens(t *testing.T) {
	srv, c := start(t)
	for i := range 10 {
		tags := map[string]string{}
		if i == 0 || i == 9 {
			tags["owned"] = "yes"
		}
		createTagged(t, c, "s"+pad12(i), "", tags)
	}
	srv.SetFaults(t, emulator.Faults{ListScanLimit: 3})
	var pages, empty int
	var got []string
	pg := secretsmanager.NewListSecretsPaginator(c, &secretsmanager.ListSecretsInput{Filters: []types.Filter{f(types.FilterNameStringTypeTagKey, "owned")}})
	for pg.HasMorePages() {
		out := must[*secretsmanager.ListSecretsOutput](t)(pg.NextPage(ctx))
		pages++
		if len(out.SecretList) == 0 && out.NextToken != nil {
			empty++
		}
		for _, s := range out.SecretList {
			got = append(got, *s.Name)
		}
	}
	if !slices.Equal(got, []string{"s" + pad12(0), "s" + pad12(9)}) || pages != 4 || empty != 2 {
		t.Fatalf("got %v in %d pages (%d empty with a token)", got, pages, empty)
	}
	desc := listNames(t, c, &secretsmanager.ListSecretsInput{SortOrder: types.SortOrderTypeDesc, MaxResults: aws.Int32(2)})
	if len(desc) != 10 || desc[0] != "s"+pad12(9) {
		t.Fatalf("desc with scan limit %v", desc)
	}
}

// TestFault_DeniedAnswersAccessDeniedForEveryCallOfTheAction: an IAM
// action in denied refuses every call of its operation (HTTP 400,
// AccessDeniedException, nothing applied); other operations pass; an
// action of no served operation is refused when set.
func TestFault_DeniedAnswersAccessDeniedForEveryCallOfTheAction(t *testing.T) {
	srv, c := start(t)
	create(t, c, "x", "v")
	srv.SetFaults(t, emulator.Faults{Denied: []string{"secretsmanager:TagResource"}})
	for range 2 {
		_, err := c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("x"), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
		var re *smithyhttp.ResponseError
		if !errors.As(err, &re) || re.HTTPStatusCode() != 400 || !strings.Contains(err.Error(), "AccessDeniedException") {
			t.Fatalf("want AccessDeniedException (400), got %v", err)
		}
	}
	if tags := srv.State(t).Secrets[0].Tags; len(tags) != 0 {
		t.Fatalf("a denied TagResource applied: %v", tags)
	}
	must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("x")}))
	if n := srv.Stats(t).Faults["error:AccessDeniedException"]; n != 2 {
		t.Fatalf("denied faults %d, want 2", n)
	}
	for _, bad := range []string{"secretsmanager:NoSuchCall", "TagResource", "iam:TagResource"} {
		if err := emulator.ValidateFaults(emulator.Faults{Denied: []string{bad}}); err == nil {
			t.Fatalf("denied %q accepted", bad)
		}
	}
}

// A scripted hold keeps the Nth call of an operation waiting, unapplied,
// until the control API releases it; then it is served as usual.
func TestFault_ScriptedHoldWaitsForTheRelease(t *testing.T) {
	srv, c := start(t)
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "CreateSecret", Nth: 1, Fault: "hold"}}})
	held := make(chan error, 1)
	go func() {
		_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("held"), SecretString: aws.String("v")})
		held <- err
	}()
	// Another operation is served meanwhile.
	must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	select {
	case err := <-held:
		t.Fatalf("the held call was answered before the release: %v", err)
	default:
	}
	if n := len(srv.State(t).Secrets); n != 0 {
		t.Fatalf("%d secrets while the create is held", n)
	}
	srv.Control().Must(t).Release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if st := srv.Stats(t); len(srv.State(t).Secrets) != 1 || st.Faults["hold"] != 1 {
		t.Fatalf("after release: %d secrets, faults %v", len(srv.State(t).Secrets), st.Faults)
	}
}
