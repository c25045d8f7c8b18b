package emulator_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// STS on the emulator's listener, driven by the real aws-sdk-go-v2 STS
// client and its assume-role credential providers.

const (
	roleProd    = "arn:aws:iam::" + acctProd + ":role/secrets-sync"
	roleStaging = "arn:aws:iam::" + acctStage + ":role/ci/secrets-sync"
	acctCI      = "444444444444"
	keyCI       = "AKIACIEXAMPLE0000001"
)

func noSTSRetry(o *sts.Options) { o.RetryMaxAttempts = 1 }

func startSTS(t *testing.T, iam emulator.IAM) *emulatortest.Server {
	t.Helper()
	if iam.AccessKeys == nil {
		iam.AccessKeys = map[string]string{keyCI: "arn:aws:iam::" + acctCI + ":user/ci", keyProd: acctProd}
	}
	return emulatortest.Start(t, emulator.WithIAM(iam))
}

func staticKey(key string) aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(key, "secret", "")
}

func wantSTSError(t *testing.T, err error, status int, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code || (msg != "" && ae.ErrorMessage() != msg) {
		t.Fatalf("want %s %q, got %v", code, msg, err)
	}
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != status {
		t.Fatalf("want HTTP %d, got %v", status, err)
	}
}

func TestSTS_GetCallerIdentityNamesTheKeysAccount(t *testing.T) {
	srv := startSTS(t, emulator.IAM{})
	for key, want := range map[string][2]string{
		keyCI:                  {acctCI, "arn:aws:iam::" + acctCI + ":user/ci"},
		keyProd:                {acctProd, "arn:aws:iam::" + acctProd + ":user/emulator"},
		"AKIAUNMAPPEDEXAMPLE1": {emulator.DefaultAccountID, "arn:aws:iam::" + emulator.DefaultAccountID + ":user/emulator"},
	} {
		out, err := srv.STSClient(t, "eu-west-1", staticKey(key), noSTSRetry).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatal(err)
		}
		if *out.Account != want[0] || *out.Arn != want[1] || !strings.HasPrefix(*out.UserId, "AIDA") {
			t.Fatalf("%s: %s %s %s", key, *out.Account, *out.Arn, *out.UserId)
		}
	}
	if n := srv.Stats(t).Calls["GetCallerIdentity"]; n != 3 {
		t.Fatalf("GetCallerIdentity calls %d", n)
	}
}

func TestSTS_AssumeRoleCallsLandInTheRolesAccount(t *testing.T) {
	srv := startSTS(t, emulator.IAM{Roles: []emulator.Role{{ARN: roleProd, Trust: []string{acctCI}}}})
	base := srv.STSClient(t, "us-east-1", staticKey(keyCI), noSTSRetry)
	prov := aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(base, roleProd, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = "sops-aws-sync-prod-eu"
	}))
	sm := srv.ClientWith(t, "eu-west-1", prov, noRetry)
	out := create(t, sm, "prod/app", "v")
	if !strings.HasPrefix(*out.ARN, "arn:aws:secretsmanager:eu-west-1:"+acctProd+":secret:prod/app-") {
		t.Fatalf("ARN %s", *out.ARN)
	}
	// Read back through the role: same account and Region.
	v := must[*secretsmanager.GetSecretValueOutput](t)(sm.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("prod/app")}))
	if *v.SecretString != "v" {
		t.Fatal("value")
	}
	// The base identity's account does not see it.
	_, err := srv.ClientIn(t, "eu-west-1", keyCI, noRetry).DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("prod/app")})
	wantCode(t, err, "ResourceNotFoundException")

	// GetCallerIdentity with the temporary credentials: the session.
	who := must[*sts.GetCallerIdentityOutput](t)(srv.STSClient(t, "us-east-1", prov, noSTSRetry).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}))
	if *who.Account != acctProd || *who.Arn != "arn:aws:sts::"+acctProd+":assumed-role/secrets-sync/sops-aws-sync-prod-eu" ||
		!strings.HasPrefix(*who.UserId, "AROA") || !strings.HasSuffix(*who.UserId, ":sops-aws-sync-prod-eu") {
		t.Fatalf("caller %s %s %s", *who.Account, *who.Arn, *who.UserId)
	}
	ss := srv.Control().Must(t).Sessions().Sessions
	if len(ss) != 1 || ss[0].RoleARN != roleProd || ss[0].Account != acctProd || ss[0].SessionName != "sops-aws-sync-prod-eu" ||
		ss[0].Action != "AssumeRole" || ss[0].Caller != "arn:aws:iam::"+acctCI+":user/ci" || !strings.HasPrefix(ss[0].AccessKeyID, "ASIA") {
		t.Fatalf("sessions %+v", ss)
	}
	// 15 minutes from the emulator clock (stscreds.DefaultDuration).
	if d := ss[0].Expiration.Sub(srv.Emu.Now()); d < 14*time.Minute || d > stscreds.DefaultDuration {
		t.Fatalf("expires in %v", d)
	}
	if st := srv.Stats(t); st.Calls["AssumeRole"] != 1 || st.CallsByAccountRegion[acctProd+"/eu-west-1"]["CreateSecret"] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestSTS_DeniedAssumeRoleIsAccessDenied(t *testing.T) {
	srv := startSTS(t, emulator.IAM{Roles: []emulator.Role{
		{ARN: roleProd, Trust: []string{"999999999999"}},
		{ARN: roleStaging, Trust: []string{"*"}, Deny: true},
	}})
	base := srv.STSClient(t, "us-east-1", staticKey(keyCI), noSTSRetry)
	for _, role := range []string{roleProd, roleStaging} {
		_, err := base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(role), RoleSessionName: aws.String("s1")})
		wantSTSError(t, err, 403, "AccessDenied", "User: arn:aws:iam::"+acctCI+":user/ci is not authorized to perform: sts:AssumeRole on resource: "+role)
	}
	// Through the SDK's provider the denial reaches the caller of the client.
	prov := stscreds.NewAssumeRoleProvider(base, roleProd)
	_, err := srv.ClientWith(t, "us-east-1", aws.NewCredentialsCache(prov), noRetry).ListSecrets(ctx, &secretsmanager.ListSecretsInput{})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "AccessDenied" {
		t.Fatalf("list with a denied role: %v", err)
	}
	if n := len(srv.Control().Must(t).Sessions().Sessions); n != 0 {
		t.Fatalf("%d sessions issued", n)
	}
	// RequireRoles: an unlisted role is refused; listed ones follow their rule.
	srv.Control().Must(t).SetIAM(emulator.IAM{RequireRoles: true, AccessKeys: map[string]string{keyCI: acctCI}})
	_, err = base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::555555555555:role/other"), RoleSessionName: aws.String("s1")})
	wantSTSError(t, err, 403, "AccessDenied", "")
	// Without rules any role may be assumed (the default).
	srv.Control().Must(t).SetIAM(emulator.IAM{})
	if _, err := base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::555555555555:role/other"), RoleSessionName: aws.String("s1")}); err != nil {
		t.Fatal(err)
	}
}

func TestSTS_RoleChainingAndSessionLimits(t *testing.T) {
	srv := startSTS(t, emulator.IAM{Roles: []emulator.Role{
		{ARN: roleProd, Trust: []string{acctCI}, MaxSessionDurationSeconds: 7200},
		{ARN: roleStaging, Trust: []string{roleProd}}, // trusts the prod role's sessions
	}})
	base := srv.STSClient(t, "us-east-1", staticKey(keyCI), noSTSRetry)
	// Longer than the role's MaxSessionDuration.
	_, err := base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleProd), RoleSessionName: aws.String("s1"), DurationSeconds: aws.Int32(7201)})
	wantSTSError(t, err, 400, "ValidationError", "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
	_, err = base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleProd), RoleSessionName: aws.String("s1"), DurationSeconds: aws.Int32(899)})
	wantSTSError(t, err, 400, "ValidationError", "")
	_, err = base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleProd), RoleSessionName: aws.String("bad name")})
	wantSTSError(t, err, 400, "ValidationError", "")
	out := must[*sts.AssumeRoleOutput](t)(base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleProd), RoleSessionName: aws.String("hop1"), DurationSeconds: aws.Int32(7200)}))
	if d := out.Credentials.Expiration.Sub(srv.Emu.Now()); d < 119*time.Minute || d > 2*time.Hour {
		t.Fatalf("2 h session expires in %v", d)
	}
	hop1 := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider(*out.Credentials.AccessKeyId, *out.Credentials.SecretAccessKey, *out.Credentials.SessionToken)})
	// Role chaining is limited to one hour.
	_, err = hop1.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleStaging), RoleSessionName: aws.String("hop2"), DurationSeconds: aws.Int32(3601)})
	wantSTSError(t, err, 400, "ValidationError", "The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
	hop2 := must[*sts.AssumeRoleOutput](t)(hop1.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleStaging), RoleSessionName: aws.String("hop2")}))
	if *hop2.AssumedRoleUser.Arn != "arn:aws:sts::"+acctStage+":assumed-role/secrets-sync/hop2" {
		t.Fatalf("hop2 %s", *hop2.AssumedRoleUser.Arn)
	}
	// The base user is not trusted by the staging role.
	_, err = base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleStaging), RoleSessionName: aws.String("direct")})
	wantSTSError(t, err, 403, "AccessDenied", "")
}

func TestSTS_ExpiredTemporaryCredentialsAreRefused(t *testing.T) {
	srv := startSTS(t, emulator.IAM{})
	base := srv.STSClient(t, "us-east-1", staticKey(keyCI), noSTSRetry)
	out := must[*sts.AssumeRoleOutput](t)(base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleProd), RoleSessionName: aws.String("short"), DurationSeconds: aws.Int32(900)}))
	creds := credentials.NewStaticCredentialsProvider(*out.Credentials.AccessKeyId, *out.Credentials.SecretAccessKey, *out.Credentials.SessionToken)
	sm := srv.ClientWith(t, "us-east-1", creds, noRetry)
	create(t, sm, "a", "v")
	srv.AdvanceClock(t, 15*time.Minute)
	_, err := sm.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("b"), SecretString: aws.String("v")})
	wantAPIError(t, err, "ExpiredTokenException", "The security token included in the request is expired")
	_, err = srv.STSClient(t, "us-east-1", creds, noSTSRetry).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	wantSTSError(t, err, 403, "ExpiredToken", "")
	// A wrong session token for an issued key is refused too.
	bad := srv.ClientWith(t, "us-east-1", credentials.NewStaticCredentialsProvider(*out.Credentials.AccessKeyId, "x", "forged"), noRetry)
	_, err = bad.ListSecrets(ctx, &secretsmanager.ListSecretsInput{})
	wantCode(t, err, "UnrecognizedClientException")
	if st := srv.State(t); len(st.Secrets) != 1 || st.Secrets[0].Account != acctProd {
		t.Fatalf("state %+v", st.Secrets)
	}
}

// jwt builds an unsigned-looking JWT with these claims (the emulator reads
// claims, it does not check signatures).
func jwt(claims map[string]any) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))
	b, _ := json.Marshal(claims)
	return h + "." + base64.RawURLEncoding.EncodeToString(b) + ".c2lnbmF0dXJl"
}

func TestSTS_AssumeRoleWithWebIdentity(t *testing.T) {
	srv := startSTS(t, emulator.IAM{Roles: []emulator.Role{
		{ARN: roleProd, WebIdentitySubjects: []string{"repo:acme/payments:ref:refs/heads/main", "repo:acme/payments:environment:*"}},
	}})
	// The SDK sends this operation unsigned.
	c := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1})
	exp := float64(srv.Emu.Now().Add(5 * time.Minute).Unix())
	tok := jwt(map[string]any{"iss": "https://token.actions.githubusercontent.com", "sub": "repo:acme/payments:environment:prod", "aud": "sts.amazonaws.com", "exp": exp})
	out := must[*sts.AssumeRoleWithWebIdentityOutput](t)(c.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{
		RoleArn: aws.String(roleProd), RoleSessionName: aws.String("GitHubActions"), WebIdentityToken: aws.String(tok)}))
	if *out.SubjectFromWebIdentityToken != "repo:acme/payments:environment:prod" || *out.Audience != "sts.amazonaws.com" ||
		*out.Provider != "https://token.actions.githubusercontent.com" || *out.AssumedRoleUser.Arn != "arn:aws:sts::"+acctProd+":assumed-role/secrets-sync/GitHubActions" {
		t.Fatalf("out %+v", out)
	}
	creds := credentials.NewStaticCredentialsProvider(*out.Credentials.AccessKeyId, *out.Credentials.SecretAccessKey, *out.Credentials.SessionToken)
	if a := create(t, srv.ClientWith(t, "eu-west-1", creds, noRetry), "x", "v"); !strings.Contains(*a.ARN, ":eu-west-1:"+acctProd+":") {
		t.Fatalf("ARN %s", *a.ARN)
	}
	// Another subject (a pull request) is refused.
	pr := jwt(map[string]any{"iss": "https://token.actions.githubusercontent.com", "sub": "repo:acme/payments:pull_request", "aud": []string{"sts.amazonaws.com"}})
	_, err := c.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String(roleProd), RoleSessionName: aws.String("GitHubActions"), WebIdentityToken: aws.String(pr)})
	wantSTSError(t, err, 403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity")
	// An expired token, and one that is not a JWT.
	srv.AdvanceClock(t, 5*time.Minute)
	_, err = c.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String(roleProd), RoleSessionName: aws.String("GitHubActions"), WebIdentityToken: aws.String(tok)})
	wantSTSError(t, err, 400, "ExpiredTokenException", "")
	_, err = c.AssumeRoleWithWebIdentity(ctx, &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String(roleProd), RoleSessionName: aws.String("GitHubActions"), WebIdentityToken: aws.String("not-a-jwt")})
	wantSTSError(t, err, 400, "InvalidIdentityToken", "")
	// The SDK's web identity provider (what AWS_WEB_IDENTITY_TOKEN_FILE uses) works end to end.
	fresh := jwt(map[string]any{"sub": "repo:acme/payments:ref:refs/heads/main", "aud": "sts.amazonaws.com"})
	prov := aws.NewCredentialsCache(stscreds.NewWebIdentityRoleProvider(c, roleProd, tokenString(fresh)))
	if _, err := srv.ClientWith(t, "us-east-1", prov, noRetry).ListSecrets(ctx, &secretsmanager.ListSecretsInput{}); err != nil {
		t.Fatal(err)
	}
	ss := srv.Control().Must(t).Sessions().Sessions
	if len(ss) != 2 || ss[1].Action != "AssumeRoleWithWebIdentity" || ss[1].Caller != "repo:acme/payments:ref:refs/heads/main" {
		t.Fatalf("sessions %+v", ss)
	}
}

type tokenString string

func (s tokenString) GetIdentityToken() ([]byte, error) { return []byte(s), nil }

func TestSTS_RolesValidatedAndUnknownActionsRefused(t *testing.T) {
	srv := startSTS(t, emulator.IAM{})
	ctl := srv.Control()
	for _, bad := range []emulator.IAM{
		{Roles: []emulator.Role{{ARN: "arn:aws:iam::1:role/x"}}},
		{Roles: []emulator.Role{{ARN: roleProd}, {ARN: roleProd}}},
		{Roles: []emulator.Role{{ARN: roleProd, Trust: []string{"someone"}}}},
		{Roles: []emulator.Role{{ARN: roleProd, MaxSessionDurationSeconds: 60}}},
	} {
		var ce *emulatortest.ControlError
		if err := ctl.SetIAM(ctx, bad); !errorsAs(err, &ce) || ce.Status != 400 {
			t.Fatalf("SetIAM(%+v): %v", bad, err)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader("Action=GetSessionToken&Version=2011-06-15"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "<Code>InvalidAction</Code>") || !strings.HasPrefix(string(b), "<?xml") {
		t.Fatalf("unknown action: %d %s", resp.StatusCode, b)
	}
	// An unsigned AssumeRole is refused: it needs credentials.
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader("Action=AssumeRole&Version=2011-06-15&RoleArn="+roleProd+"&RoleSessionName=s1"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(b), "<Code>MissingAuthenticationToken</Code>") {
		t.Fatalf("unsigned AssumeRole: %d %s", resp.StatusCode, b)
	}
}

// The faults' script reaches STS actions: the Nth AssumeRole answers
// Throttling "Rate exceeded" (HTTP 400, STS's throttle) or any scripted
// error, nothing issued; a hold keeps the call waiting until the control
// API releases it, while other calls are served. Ambiguous faults are
// refused for an STS action.
func TestSTS_ScriptedFaultsAndHolds(t *testing.T) {
	srv := startSTS(t, emulator.IAM{})
	base := srv.STSClient(t, "us-east-1", staticKey(keyCI), noSTSRetry)
	assume := func(role string) error {
		_, err := base.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(role), RoleSessionName: aws.String("s1")})
		return err
	}
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "AssumeRole", Nth: 1, Fault: "error:Throttling"},
		{Operation: "AssumeRole", Nth: 2, Fault: "error:InternalFailure"},
		{Operation: "GetCallerIdentity", Nth: 1, Fault: "error:Throttling"},
	}})
	wantSTSError(t, assume(roleProd), 400, "Throttling", "Rate exceeded")
	wantSTSError(t, assume(roleProd), 500, "InternalFailure", "")
	if err := assume(roleProd); err != nil {
		t.Fatal(err)
	}
	_, err := base.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	wantSTSError(t, err, 400, "Throttling", "Rate exceeded")
	if n := len(srv.Control().Must(t).Sessions().Sessions); n != 1 {
		t.Fatalf("%d sessions issued, want the one answered", n)
	}
	if st := srv.Stats(t); st.Calls["AssumeRole"] != 3 || st.Faults["error:Throttling"] != 2 || st.Faults["error:InternalFailure"] != 1 {
		t.Fatalf("stats %+v", st)
	}

	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "AssumeRole", Nth: 1, Fault: "hold"}}})
	held := make(chan error, 1)
	go func() { held <- assume(roleProd) }()
	// Another call is answered while the first is held: the hold keeps
	// one call, not the service.
	if _, err := base.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-held:
		t.Fatalf("the held call was answered before the release: %v", err)
	default:
	}
	srv.Control().Must(t).Release()
	if err := <-held; err != nil {
		t.Fatalf("the released call: %v", err)
	}
	if st := srv.Stats(t); st.Faults["hold"] != 1 || st.Calls["AssumeRole"] != 4 {
		t.Fatalf("stats %+v", st)
	}

	err = srv.Control().SetFaults(ctx, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "AssumeRole", Nth: 1, Fault: "ambiguous-after-apply"}}})
	var ce *emulatortest.ControlError
	if !errors.As(err, &ce) || !strings.Contains(ce.Error(), "an STS action takes hang, hold or error") {
		t.Fatalf("ambiguous fault on STS: %v", err)
	}
}
