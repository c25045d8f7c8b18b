package awsorg_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	orgtypes "github.com/aws/aws-sdk-go-v2/service/organizations/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/awsorg"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
)

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// build makes root → {a → {a1}, b}: 25 accounts in the root, 3 in a, one
// of them tagged and one closed.
func build(t *testing.T, c *organizations.Client) {
	ctx := context.Background()
	must[*organizations.CreateOrganizationOutput](t)(c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{}))
	root := aws.ToString(must[*organizations.ListRootsOutput](t)(c.ListRoots(ctx, &organizations.ListRootsInput{})).Roots[0].Id)
	ou := func(parent, name string) string {
		return aws.ToString(must[*organizations.CreateOrganizationalUnitOutput](t)(c.CreateOrganizationalUnit(ctx,
			&organizations.CreateOrganizationalUnitInput{ParentId: aws.String(parent), Name: aws.String(name)})).OrganizationalUnit.Id)
	}
	a := ou(root, "a")
	ou(a, "a1")
	ou(root, "b")
	for i := range 27 {
		name := fmt.Sprintf("acct-%02d", i)
		req := must[*organizations.CreateAccountOutput](t)(c.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(name), Email: aws.String(name + "@example.com")}))
		id := aws.ToString(must[*organizations.DescribeCreateAccountStatusOutput](t)(c.DescribeCreateAccountStatus(ctx,
			&organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: req.CreateAccountStatus.Id})).CreateAccountStatus.AccountId)
		if i < 3 {
			must[*organizations.MoveAccountOutput](t)(c.MoveAccount(ctx, &organizations.MoveAccountInput{AccountId: aws.String(id), SourceParentId: aws.String(root), DestinationParentId: aws.String(a)}))
		}
		if i == 0 {
			must[*organizations.TagResourceOutput](t)(c.TagResource(ctx, &organizations.TagResourceInput{ResourceId: aws.String(id), Tags: []orgtypes.Tag{{Key: aws.String("sync"), Value: aws.String("yes")}}}))
		}
		if i == 1 {
			must[*organizations.CloseAccountOutput](t)(c.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String(id)}))
		}
	}
}

func reader(srv *emulatortest.Server, t *testing.T) awsorg.Reader {
	c := srv.OrganizationsClient(t, "", func(o *organizations.Options) { o.Retryer = awscore.NoThrottleRetry(o.Retryer) })
	return awsorg.Reader{API: c, Calls: awscore.Calls{Pace: pace.New(pace.SystemClock{}, pace.OrganizationsLimits()), Codes: awsorg.Codes}}
}

// TestRead_PageCountMinimumAndThrottlesResent: the whole tree in the
// fewest pages (MaxResults 20), a TooManyRequestsException resent after a
// new turn, tags only for the accounts under the selected OU.
func TestRead_PageCountMinimumAndThrottlesResent(t *testing.T) {
	srv := emulatortest.Start(t)
	build(t, srv.OrganizationsClient(t, ""))
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "organizations:ListAccountsForParent", Nth: 2, Fault: "error:TooManyRequestsException"}}})
	before := srv.Stats(t).Calls
	org, err := reader(srv, t).Read(context.Background(), []string{"a"}, true)
	if err != nil {
		t.Fatal(err)
	}
	after := srv.Stats(t).Calls
	calls := func(op string) int64 { return after["organizations:"+op] - before["organizations:"+op] }
	// 1 root page; one OU page per unit (root, a, a1, b); account pages:
	// root 25 accounts in 2, then a, a1, b in 1 each, plus the throttled
	// one resent; tags of the 3 accounts under a.
	want := map[string]int64{"ListRoots": 1, "ListOrganizationalUnitsForParent": 4, "ListAccountsForParent": 6, "ListTagsForResource": 3}
	for op, n := range want {
		if got := calls(op); got != n {
			t.Errorf("%s: %d calls, want %d", op, got, n)
		}
	}
	if len(org.Accounts) != 28 || len(org.Units) != 4 {
		t.Fatalf("read %d accounts in %d units, want 28 (management included) in 4", len(org.Accounts), len(org.Units))
	}
	statuses := map[string]string{}
	for _, a := range org.Accounts {
		statuses[a.Name] = a.Status
		if a.Path == "a" && a.Name == "acct-00" && a.Tags["sync"] != "yes" {
			t.Errorf("acct-00 tags %v", a.Tags)
		}
		if a.Path != "a" && a.Tags != nil {
			t.Errorf("%s outside the selection has tags listed", a.Name)
		}
	}
	if statuses["acct-01"] != "SUSPENDED" || statuses["acct-05"] != "ACTIVE" {
		t.Errorf("statuses %v", statuses)
	}
}

func TestRead_AccessDeniedIsConverted(t *testing.T) {
	srv := emulatortest.Start(t)
	build(t, srv.OrganizationsClient(t, ""))
	srv.SetFaults(t, emulator.Faults{Denied: []string{"organizations:ListAccountsForParent"}})
	_, err := reader(srv, t).Read(context.Background(), nil, false)
	if !awscore.IsCode(err, "AccessDeniedException") {
		t.Fatalf("got %v, want AccessDeniedException converted", err)
	}
}

// TestRead_FiveHundredAccountsInTwentyOUs_PageCountMinimum: the issue's
// benchmark row (docs/benchmarks.md, "scopes generate"): 500 accounts in
// 20 OUs are read in exactly the page-count minimum, 1 ListRoots + one OU
// page per unit (21) + the account pages (25 accounts an OU: 2 pages each,
// the root's management account 1) = 63 calls, and 500 more for tags when
// every account is selected by tag.
func TestRead_FiveHundredAccountsInTwentyOUs_PageCountMinimum(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.OrganizationsClient(t, "")
	ctx := context.Background()
	must[*organizations.CreateOrganizationOutput](t)(c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{}))
	root := aws.ToString(must[*organizations.ListRootsOutput](t)(c.ListRoots(ctx, &organizations.ListRootsInput{})).Roots[0].Id)
	for o := range 20 {
		ou := aws.ToString(must[*organizations.CreateOrganizationalUnitOutput](t)(c.CreateOrganizationalUnit(ctx,
			&organizations.CreateOrganizationalUnitInput{ParentId: aws.String(root), Name: aws.String(fmt.Sprintf("ou-%02d", o))})).OrganizationalUnit.Id)
		for a := range 25 {
			name := fmt.Sprintf("acct-%02d-%02d", o, a)
			must[*organizations.CreateAccountOutput](t)(c.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(name), Email: aws.String(name + "@example.com")}))
			// The request completes on the next call; move it out of the root.
			accts := must[*organizations.ListAccountsForParentOutput](t)(c.ListAccountsForParent(ctx, &organizations.ListAccountsForParentInput{ParentId: aws.String(root)}))
			for _, x := range accts.Accounts {
				if aws.ToString(x.Name) == name {
					must[*organizations.MoveAccountOutput](t)(c.MoveAccount(ctx, &organizations.MoveAccountInput{AccountId: x.Id, SourceParentId: aws.String(root), DestinationParentId: aws.String(ou)}))
				}
			}
		}
	}
	before := srv.Stats(t).Calls
	org, err := reader(srv, t).Read(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	after := srv.Stats(t).Calls
	var total int64
	for op, n := range after {
		if op != "organizations:CreateAccount" && op != "organizations:MoveAccount" {
			total += n - before[op]
		}
	}
	if len(org.Accounts) != 501 || total != 63 {
		t.Errorf("read %d accounts in %d calls, want 501 in the page-count minimum 63", len(org.Accounts), total)
	}
}
