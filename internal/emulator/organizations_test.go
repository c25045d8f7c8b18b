package emulator_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	orgtypes "github.com/aws/aws-sdk-go-v2/service/organizations/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Conformance of the Organizations service (docs/emulator.md,
// "Organizations"), driven by the real aws-sdk-go-v2 Organizations client:
// the calls that build an organization and those that read it, paging,
// throttling, faults, and what STS does with its accounts.

func orgNoRetry(o *organizations.Options) { o.RetryMaxAttempts = 1 }

// newOrg starts an emulator and creates an organization whose management
// account is the default account; it returns the client and the root id.
func newOrg(t *testing.T, opts ...emulator.Option) (*emulatortest.Server, *organizations.Client, string) {
	t.Helper()
	srv := emulatortest.Start(t, opts...)
	c := srv.OrganizationsClient(t, "", orgNoRetry)
	ctx := context.Background()
	must[*organizations.CreateOrganizationOutput](t)(c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{FeatureSet: orgtypes.OrganizationFeatureSetAll}))
	roots := must[*organizations.ListRootsOutput](t)(c.ListRoots(ctx, &organizations.ListRootsInput{}))
	if len(roots.Roots) != 1 {
		t.Fatalf("roots = %d, want 1", len(roots.Roots))
	}
	return srv, c, aws.ToString(roots.Roots[0].Id)
}

// newAccount creates an account and waits (on the emulator clock) for its
// request to succeed; it returns the account id.
func newAccount(t *testing.T, c *organizations.Client, name string) string {
	t.Helper()
	ctx := context.Background()
	out := must[*organizations.CreateAccountOutput](t)(c.CreateAccount(ctx, &organizations.CreateAccountInput{
		AccountName: aws.String(name), Email: aws.String(name + "@example.com")}))
	if out.CreateAccountStatus.State != orgtypes.CreateAccountStateInProgress {
		t.Fatalf("CreateAccount answered %s, want IN_PROGRESS (an asynchronous request)", out.CreateAccountStatus.State)
	}
	st := must[*organizations.DescribeCreateAccountStatusOutput](t)(c.DescribeCreateAccountStatus(ctx,
		&organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: out.CreateAccountStatus.Id}))
	if st.CreateAccountStatus.State != orgtypes.CreateAccountStateSucceeded || aws.ToString(st.CreateAccountStatus.AccountId) == "" {
		t.Fatalf("DescribeCreateAccountStatus = %+v, want SUCCEEDED with an account id", st.CreateAccountStatus)
	}
	return aws.ToString(st.CreateAccountStatus.AccountId)
}

func TestOrganizations_BuildThenRead(t *testing.T) {
	srv, c, root := newOrg(t)
	ctx := context.Background()

	org := must[*organizations.DescribeOrganizationOutput](t)(c.DescribeOrganization(ctx, &organizations.DescribeOrganizationInput{}))
	if got := aws.ToString(org.Organization.MasterAccountId); got != srv.Emu.AccountID() {
		t.Errorf("management account = %s, want the caller's %s", got, srv.Emu.AccountID())
	}
	orgID := aws.ToString(org.Organization.Id)
	if want := "arn:aws:organizations::" + srv.Emu.AccountID() + ":organization/" + orgID; aws.ToString(org.Organization.Arn) != want {
		t.Errorf("arn = %s, want %s", aws.ToString(org.Organization.Arn), want)
	}

	platform := must[*organizations.CreateOrganizationalUnitOutput](t)(c.CreateOrganizationalUnit(ctx,
		&organizations.CreateOrganizationalUnitInput{ParentId: aws.String(root), Name: aws.String("platform")})).OrganizationalUnit
	prod := must[*organizations.CreateOrganizationalUnitOutput](t)(c.CreateOrganizationalUnit(ctx,
		&organizations.CreateOrganizationalUnitInput{ParentId: platform.Id, Name: aws.String("prod"),
			Tags: []orgtypes.Tag{{Key: aws.String("tier"), Value: aws.String("1")}}})).OrganizationalUnit
	if want := "arn:aws:organizations::" + srv.Emu.AccountID() + ":ou/" + orgID + "/" + aws.ToString(prod.Id); aws.ToString(prod.Arn) != want {
		t.Errorf("OU arn = %s, want %s", aws.ToString(prod.Arn), want)
	}
	_, err := c.CreateOrganizationalUnit(ctx, &organizations.CreateOrganizationalUnitInput{ParentId: platform.Id, Name: aws.String("prod")})
	wantCode(t, err, "DuplicateOrganizationalUnitException")

	payments := newAccount(t, c, "payments")
	must[*organizations.MoveAccountOutput](t)(c.MoveAccount(ctx, &organizations.MoveAccountInput{AccountId: aws.String(payments),
		SourceParentId: aws.String(root), DestinationParentId: prod.Id}))
	_, err = c.MoveAccount(ctx, &organizations.MoveAccountInput{AccountId: aws.String(payments),
		SourceParentId: prod.Id, DestinationParentId: prod.Id})
	wantCode(t, err, "DuplicateAccountException")
	must[*organizations.TagResourceOutput](t)(c.TagResource(ctx, &organizations.TagResourceInput{ResourceId: aws.String(payments),
		Tags: []orgtypes.Tag{{Key: aws.String("team"), Value: aws.String("pay")}, {Key: aws.String("env"), Value: aws.String("prod")}}}))
	must[*organizations.TagResourceOutput](t)(c.TagResource(ctx, &organizations.TagResourceInput{ResourceId: aws.String(payments),
		Tags: []orgtypes.Tag{{Key: aws.String("team"), Value: aws.String("payments")}}}))

	tags := must[*organizations.ListTagsForResourceOutput](t)(c.ListTagsForResource(ctx, &organizations.ListTagsForResourceInput{ResourceId: aws.String(payments)}))
	var got []string
	for _, tg := range tags.Tags {
		got = append(got, aws.ToString(tg.Key)+"="+aws.ToString(tg.Value))
	}
	if !slices.Equal(got, []string{"team=payments", "env=prod"}) {
		t.Errorf("tags = %v, want team=payments (updated in place), env=prod", got)
	}

	inProd := must[*organizations.ListAccountsForParentOutput](t)(c.ListAccountsForParent(ctx, &organizations.ListAccountsForParentInput{ParentId: prod.Id}))
	if len(inProd.Accounts) != 1 || aws.ToString(inProd.Accounts[0].Id) != payments || inProd.Accounts[0].State != orgtypes.AccountStateActive ||
		inProd.Accounts[0].Status != orgtypes.AccountStatusActive {
		t.Errorf("accounts of prod = %+v, want payments ACTIVE", inProd.Accounts)
	}
	parents := must[*organizations.ListParentsOutput](t)(c.ListParents(ctx, &organizations.ListParentsInput{ChildId: aws.String(payments)}))
	if len(parents.Parents) != 1 || aws.ToString(parents.Parents[0].Id) != aws.ToString(prod.Id) || parents.Parents[0].Type != orgtypes.ParentTypeOrganizationalUnit {
		t.Errorf("parents of payments = %+v", parents.Parents)
	}
	parents = must[*organizations.ListParentsOutput](t)(c.ListParents(ctx, &organizations.ListParentsInput{ChildId: platform.Id}))
	if len(parents.Parents) != 1 || parents.Parents[0].Type != orgtypes.ParentTypeRoot {
		t.Errorf("parents of platform = %+v, want the root", parents.Parents)
	}
	ous := must[*organizations.ListOrganizationalUnitsForParentOutput](t)(c.ListOrganizationalUnitsForParent(ctx,
		&organizations.ListOrganizationalUnitsForParentInput{ParentId: aws.String(root)}))
	if len(ous.OrganizationalUnits) != 1 || aws.ToString(ous.OrganizationalUnits[0].Name) != "platform" {
		t.Errorf("OUs under the root = %+v", ous.OrganizationalUnits)
	}

	dump := srv.Control().Must(t).Organizations()
	if len(dump.Organizations) != 1 {
		t.Fatalf("dump = %+v", dump)
	}
	var acct emulator.OrgAccountDump
	for _, a := range dump.Organizations[0].Accounts {
		if a.ID == payments {
			acct = a
		}
	}
	if acct.Path != "platform/prod" || acct.Tags["team"] != "payments" || acct.Role != "OrganizationAccountAccessRole" {
		t.Errorf("dump of payments = %+v", acct)
	}
}

func TestOrganizations_PagesOfAtMostMaxResults(t *testing.T) {
	srv, c, root := newOrg(t)
	ctx := context.Background()
	for i := range 24 {
		newAccount(t, c, fmt.Sprintf("acct-%02d", i))
	}
	var pages, n int
	p := organizations.NewListAccountsPaginator(c, &organizations.ListAccountsInput{MaxResults: aws.Int32(5)})
	for p.HasMorePages() {
		out := must[*organizations.ListAccountsOutput](t)(p.NextPage(ctx))
		if len(out.Accounts) > 5 {
			t.Fatalf("page of %d accounts, want at most 5", len(out.Accounts))
		}
		pages++
		n += len(out.Accounts)
	}
	if n != 25 || pages != 5 {
		t.Errorf("listed %d accounts in %d pages, want 25 in 5", n, pages)
	}
	first := must[*organizations.ListAccountsForParentOutput](t)(c.ListAccountsForParent(ctx, &organizations.ListAccountsForParentInput{ParentId: aws.String(root)}))
	if len(first.Accounts) != 20 || first.NextToken == nil {
		t.Errorf("default page = %d accounts (token %v), want 20 and a NextToken", len(first.Accounts), first.NextToken != nil)
	}
	_, err := c.ListAccounts(ctx, &organizations.ListAccountsInput{MaxResults: aws.Int32(21)})
	wantCode(t, err, "InvalidInputException")
	// A token of another listing is refused.
	_, err = c.ListAccounts(ctx, &organizations.ListAccountsInput{NextToken: first.NextToken})
	wantCode(t, err, "InvalidInputException")
	if got := srv.Stats(t).Calls["organizations:ListAccounts"]; got != 7 {
		t.Errorf("stats count %d ListAccounts calls under their qualified name, want 7", got)
	}
}

func TestOrganizations_CloseAccountPendingThenSuspended(t *testing.T) {
	srv, c, _ := newOrg(t, emulator.WithFaults(emulator.Faults{OrgCloseAccountLagMS: 60_000}))
	ctx := context.Background()
	id := newAccount(t, c, "retired")
	must[*organizations.CloseAccountOutput](t)(c.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String(id)}))
	status := func() orgtypes.AccountState {
		a := must[*organizations.DescribeAccountOutput](t)(c.DescribeAccount(ctx, &organizations.DescribeAccountInput{AccountId: aws.String(id)})).Account
		if string(a.Status) != string(a.State) {
			t.Fatalf("Status %s and State %s differ", a.Status, a.State)
		}
		return a.State
	}
	if got := status(); got != orgtypes.AccountStatePendingClosure {
		t.Errorf("after CloseAccount: %s, want PENDING_CLOSURE", got)
	}
	srv.AdvanceClock(t, time.Minute)
	if got := status(); got != orgtypes.AccountStateSuspended {
		t.Errorf("a minute later: %s, want SUSPENDED", got)
	}
	_, err := c.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String(id)})
	wantAPIError(t, err, "AccountAlreadyClosedException", "The provided account is already closed.")
	_, err = c.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String(srv.Emu.AccountID())})
	wantCode(t, err, "ConstraintViolationException")
	_, err = c.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String("123456789101")})
	wantAPIError(t, err, "AccountNotFoundException", "You specified an account that doesn't exist.")
}

func TestOrganizations_Errors(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.OrganizationsClient(t, "", orgNoRetry)
	ctx := context.Background()
	_, err := c.DescribeOrganization(ctx, &organizations.DescribeOrganizationInput{})
	wantAPIError(t, err, "AWSOrganizationsNotInUseException", "Your account is not a member of an organization.")
	_, err = c.ListRoots(ctx, &organizations.ListRootsInput{})
	wantCode(t, err, "AWSOrganizationsNotInUseException")
	_, err = c.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String("x"), Email: aws.String("x@example.com")})
	wantCode(t, err, "AWSOrganizationsNotInUseException")
	must[*organizations.CreateOrganizationOutput](t)(c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{}))
	_, err = c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{})
	wantAPIError(t, err, "AlreadyInOrganizationException", "The provided account is already a member of an organization.")
	_, err = c.ListOrganizationalUnitsForParent(ctx, &organizations.ListOrganizationalUnitsForParentInput{ParentId: aws.String("r-zzzz")})
	wantCode(t, err, "ParentNotFoundException")
	_, err = c.TagResource(ctx, &organizations.TagResourceInput{ResourceId: aws.String("0A000000X000"), Tags: []orgtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
	wantAPIError(t, err, "InvalidInputException", "You provided a value that does not match the required pattern.")
	_, err = c.ListTagsForResource(ctx, &organizations.ListTagsForResourceInput{ResourceId: aws.String("000000000000")})
	wantAPIError(t, err, "TargetNotFoundException", "You specified a target that doesn't exist.")
	_, err = c.DescribeCreateAccountStatus(ctx, &organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: aws.String("car-00000000")})
	wantCode(t, err, "CreateAccountStatusNotFoundException")

	// A member account reads nothing but DescribeOrganization.
	member := newAccount(t, c, "member")
	mc := srv.OrganizationsClientWith(t, roleCreds(t, srv, "arn:aws:iam::"+member+":role/OrganizationAccountAccessRole"), orgNoRetry)
	must[*organizations.DescribeOrganizationOutput](t)(mc.DescribeOrganization(ctx, &organizations.DescribeOrganizationInput{}))
	_, err = mc.ListAccounts(ctx, &organizations.ListAccountsInput{})
	wantCode(t, err, "AccessDeniedException")

	// A second request with a taken email fails as AWS's does.
	out := must[*organizations.CreateAccountOutput](t)(c.CreateAccount(ctx, &organizations.CreateAccountInput{
		AccountName: aws.String("again"), Email: aws.String("member@example.com")}))
	st := must[*organizations.DescribeCreateAccountStatusOutput](t)(c.DescribeCreateAccountStatus(ctx,
		&organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: out.CreateAccountStatus.Id}))
	if st.CreateAccountStatus.State != orgtypes.CreateAccountStateFailed || st.CreateAccountStatus.FailureReason != orgtypes.CreateAccountFailureReasonEmailAlreadyExists {
		t.Errorf("duplicate email: %+v, want FAILED EMAIL_ALREADY_EXISTS", st.CreateAccountStatus)
	}
}

func TestOrganizations_CreateAccountInProgressUntilTheLagPassed(t *testing.T) {
	srv, c, _ := newOrg(t, emulator.WithFaults(emulator.Faults{OrgCreateAccountLagMS: 30_000}))
	ctx := context.Background()
	out := must[*organizations.CreateAccountOutput](t)(c.CreateAccount(ctx, &organizations.CreateAccountInput{
		AccountName: aws.String("slow"), Email: aws.String("slow@example.com")}))
	describe := func() orgtypes.CreateAccountState {
		return must[*organizations.DescribeCreateAccountStatusOutput](t)(c.DescribeCreateAccountStatus(ctx,
			&organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: out.CreateAccountStatus.Id})).CreateAccountStatus.State
	}
	if got := describe(); got != orgtypes.CreateAccountStateInProgress {
		t.Errorf("before the lag: %s", got)
	}
	if n := len(must[*organizations.ListAccountsOutput](t)(c.ListAccounts(ctx, &organizations.ListAccountsInput{})).Accounts); n != 1 {
		t.Errorf("accounts before the request completed = %d, want the management account alone", n)
	}
	srv.AdvanceClock(t, 30*time.Second)
	if got := describe(); got != orgtypes.CreateAccountStateSucceeded {
		t.Errorf("after the lag: %s", got)
	}
}

func TestOrganizations_ThrottledIsTooManyRequests(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	srv, c, _ := newOrg(t, emulator.WithClock(func() time.Time { return fixed }))
	ctx := context.Background()
	srv.SetQuotas(t, emulator.Quotas{Quotas: true, QuotaScales: map[string]float64{"organizations:ListAccounts": 0.1}})
	must[*organizations.ListAccountsOutput](t)(c.ListAccounts(ctx, &organizations.ListAccountsInput{}))
	_, err := c.ListAccounts(ctx, &organizations.ListAccountsInput{})
	var tm *orgtypes.TooManyRequestsException
	if !errors.As(err, &tm) {
		t.Fatalf("second call in the same instant: %v, want TooManyRequestsException", err)
	}
	if got := srv.Stats(t).Throttled["organizations:ListAccounts"]; got != 1 {
		t.Errorf("throttled = %d, want 1", got)
	}
	// The reads share one bucket; the writes have their own.
	_, err = c.ListRoots(ctx, &organizations.ListRootsInput{})
	wantCode(t, err, "TooManyRequestsException")
	must[*organizations.CreateOrganizationalUnitOutput](t)(c.CreateOrganizationalUnit(ctx, &organizations.CreateOrganizationalUnitInput{
		ParentId: aws.String(rootOf(t, srv)), Name: aws.String("writes-apart")}))
}

func rootOf(t *testing.T, srv *emulatortest.Server) string {
	t.Helper()
	return srv.Control().Must(t).Organizations().Organizations[0].Root.ID
}

func TestOrganizations_ScriptedAndDeniedFaults(t *testing.T) {
	srv, c, _ := newOrg(t)
	ctx := context.Background()
	srv.SetFaults(t, emulator.Faults{
		Script: []emulator.ScriptedFault{{Operation: "organizations:ListAccounts", Nth: 1, Fault: "error:ServiceException"}},
		Denied: []string{"organizations:ListTagsForResource"},
	})
	_, err := c.ListAccounts(ctx, &organizations.ListAccountsInput{})
	wantCode(t, err, "ServiceException")
	must[*organizations.ListAccountsOutput](t)(c.ListAccounts(ctx, &organizations.ListAccountsInput{}))
	_, err = c.ListTagsForResource(ctx, &organizations.ListTagsForResourceInput{ResourceId: aws.String(srv.Emu.AccountID())})
	wantCode(t, err, "AccessDeniedException")
	// Secrets Manager's TagResource is not Organizations': a fault of one
	// leaves the other alone.
	if err := srv.Emu.SetFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "TagResource", Nth: 1, Fault: "error:InternalServiceError"}}}); err != nil {
		t.Fatal(err)
	}
	must[*organizations.TagResourceOutput](t)(c.TagResource(ctx, &organizations.TagResourceInput{ResourceId: aws.String(srv.Emu.AccountID()),
		Tags: []orgtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}))
}

// roleCreds are the credentials of an STS session of roleARN, assumed by
// the default account's static key.
func roleCreds(t *testing.T, srv *emulatortest.Server, roleARN string) aws.CredentialsProvider {
	t.Helper()
	stsc := srv.STSClient(t, srv.Emu.Region(), nil, func(o *sts.Options) { o.RetryMaxAttempts = 1 })
	return aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(stsc, roleARN))
}

func assume(ctx context.Context, t *testing.T, srv *emulatortest.Server, account string) error {
	t.Helper()
	stsc := srv.STSClient(t, srv.Emu.Region(), nil, func(o *sts.Options) { o.RetryMaxAttempts = 1 })
	_, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + account + ":role/OrganizationAccountAccessRole"),
		RoleSessionName: aws.String("probe")})
	return err
}

func TestOrganizations_STSRefusesAccountsNotActive(t *testing.T) {
	srv, c, _ := newOrg(t)
	ctx := context.Background()
	closed, suspended, refused, fine := newAccount(t, c, "closed"), newAccount(t, c, "suspended"), newAccount(t, c, "refused"), newAccount(t, c, "fine")
	must[*organizations.CloseAccountOutput](t)(c.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String(closed)}))
	srv.Control().Must(t).SetAccountStatus(emulator.AccountStatus{AccountID: suspended, Status: "SUSPENDED"})
	srv.SetFaults(t, emulator.Faults{STSRefuseAccounts: []string{refused}})
	for _, a := range []string{closed, suspended, refused} {
		wantCode(t, assume(ctx, t, srv, a), "AccessDenied")
	}
	if err := assume(ctx, t, srv, fine); err != nil {
		t.Errorf("the role CreateAccount made in an ACTIVE account: %v", err)
	}
	// The role trusts the management account, not another one.
	srv.Control().Must(t).SetIAM(emulator.IAM{AccessKeys: map[string]string{"AKIDOTHERACCOUNT0001": "999999999999"}})
	other := srv.STSClient(t, srv.Emu.Region(), staticKey("AKIDOTHERACCOUNT0001"), func(o *sts.Options) { o.RetryMaxAttempts = 1 })
	_, err := other.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + fine + ":role/OrganizationAccountAccessRole"), RoleSessionName: aws.String("x1")})
	wantCode(t, err, "AccessDenied")
	// Reinstated, the account is reachable again.
	srv.Control().Must(t).SetAccountStatus(emulator.AccountStatus{AccountID: suspended, Status: "ACTIVE"})
	if err := assume(ctx, t, srv, suspended); err != nil {
		t.Errorf("reinstated account: %v", err)
	}
}

func TestOrganizations_STSSilentAccountIsNeverAnswered(t *testing.T) {
	srv, c, _ := newOrg(t)
	silent := newAccount(t, c, "silent")
	srv.SetFaults(t, emulator.Faults{STSSilentAccounts: []string{silent}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- assume(ctx, t, srv, silent) }()
	// Held until the client gives up: the fault is counted once the
	// request was read, then the client cancels.
	for srv.Stats(t).Faults["sts-silent-account"] == 0 {
		runtime.Gosched()
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("AssumeRole into a silent account ended with %v, want the client's cancellation", err)
	}
}
