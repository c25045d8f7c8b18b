// Package awsorg reads an AWS organization for `scopes generate` (SPEC
// §17): its root, every OU breadth-first, every account under each (their
// status and OU path) and, for the accounts a selection keeps, their tags,
// through the real aws-sdk-go-v2 Organizations client. Every page is one
// read of awscore.Calls: paced by the run's controller (pace.Lists for the
// list pages, pace.Reads for the tags), resent after a new turn while AWS
// answers TooManyRequestsException, each under the operation timeout. It
// stands beside the Secrets Manager and Parameter Store adapters on what
// they share (internal/awscore) and imports neither.
//
// Invariants: it only reads (List* calls; the IAM actions are in
// docs/iam-policy.md); MaxResults is 20, the most a page may hold, so the
// calls are the page-count minimum; an account's state is its State, or
// its older Status when AWS sends no State; errors are awscore's converted
// engine.Error (allow-listed codes only, never AWS's text).
package awsorg

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	"github.com/aws/aws-sdk-go-v2/service/organizations/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/scopegen"
)

// API is the part of the Organizations client the reader calls
// (*organizations.Client implements it).
type API interface {
	ListRoots(context.Context, *organizations.ListRootsInput, ...func(*organizations.Options)) (*organizations.ListRootsOutput, error)
	ListOrganizationalUnitsForParent(context.Context, *organizations.ListOrganizationalUnitsForParentInput, ...func(*organizations.Options)) (*organizations.ListOrganizationalUnitsForParentOutput, error)
	ListAccountsForParent(context.Context, *organizations.ListAccountsForParentInput, ...func(*organizations.Options)) (*organizations.ListAccountsForParentOutput, error)
	ListTagsForResource(context.Context, *organizations.ListTagsForResourceInput, ...func(*organizations.Options)) (*organizations.ListTagsForResourceOutput, error)
}

var _ API = (*organizations.Client)(nil)

// Codes are the Organizations error codes reported verbatim (the API
// reference's errors of the four List calls); any other is UnknownError.
var Codes = awscore.Codes{
	Known: map[string]bool{
		"AccessDeniedException": true, "AWSOrganizationsNotInUseException": true, "ParentNotFoundException": true,
		"TargetNotFoundException": true, "InvalidInputException": true, "ServiceException": true,
		"TooManyRequestsException": true, "UnsupportedAPIEndpointException": true,
	},
	NotFound: "ParentNotFoundException",
}

// pageSize is MaxResults of every page: the most Organizations returns.
const pageSize = 20

// Reader reads one organization.
type Reader struct {
	API   API
	Calls awscore.Calls
}

type unit struct {
	id, path string
	ids      []string
}

// Read lists the organization. Tags are listed only when tags is set, and
// then only for the accounts scopegen.Selected keeps under ous. An error
// is the converted error of the call that failed (or ctx's).
func (r Reader) Read(ctx context.Context, ous []string, tags bool) (scopegen.Org, error) {
	org := scopegen.Org{Units: map[string]string{}}
	var queue []unit
	var token *string
	for {
		var out *organizations.ListRootsOutput
		err := r.Calls.Read(ctx, pace.Lists, "ListRoots", func(ctx context.Context) (err error) {
			out, err = r.API.ListRoots(ctx, &organizations.ListRootsInput{MaxResults: aws.Int32(pageSize), NextToken: token})
			return err
		})
		if err != nil {
			return org, err
		}
		for _, root := range out.Roots {
			id := aws.ToString(root.Id)
			queue = append(queue, unit{id: id, path: "", ids: []string{id}})
		}
		if token = out.NextToken; token == nil {
			break
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		org.Units[u.id] = u.path
		children, err := r.units(ctx, u)
		if err != nil {
			return org, err
		}
		queue = append(queue, children...)
		accounts, err := r.accounts(ctx, u)
		if err != nil {
			return org, err
		}
		org.Accounts = append(org.Accounts, accounts...)
	}
	if !tags {
		return org, nil
	}
	for i := range org.Accounts {
		if !scopegen.Selected(org.Accounts[i], ous) {
			continue
		}
		t, err := r.tags(ctx, org.Accounts[i].ID)
		if err != nil {
			return org, err
		}
		org.Accounts[i].Tags = t
	}
	return org, nil
}

func (r Reader) units(ctx context.Context, parent unit) ([]unit, error) {
	var out []unit
	var token *string
	for {
		var page *organizations.ListOrganizationalUnitsForParentOutput
		err := r.Calls.Read(ctx, pace.Lists, "ListOrganizationalUnitsForParent", func(ctx context.Context) (err error) {
			page, err = r.API.ListOrganizationalUnitsForParent(ctx, &organizations.ListOrganizationalUnitsForParentInput{
				ParentId: aws.String(parent.id), MaxResults: aws.Int32(pageSize), NextToken: token})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, ou := range page.OrganizationalUnits {
			p := aws.ToString(ou.Name)
			if parent.path != "" {
				p = parent.path + "/" + p
			}
			id := aws.ToString(ou.Id)
			out = append(out, unit{id: id, path: p, ids: append(append([]string(nil), parent.ids...), id)})
		}
		if token = page.NextToken; token == nil {
			return out, nil
		}
	}
}

func (r Reader) accounts(ctx context.Context, parent unit) ([]scopegen.Account, error) {
	var out []scopegen.Account
	var token *string
	for {
		var page *organizations.ListAccountsForParentOutput
		err := r.Calls.Read(ctx, pace.Lists, "ListAccountsForParent", func(ctx context.Context) (err error) {
			page, err = r.API.ListAccountsForParent(ctx, &organizations.ListAccountsForParentInput{
				ParentId: aws.String(parent.id), MaxResults: aws.Int32(pageSize), NextToken: token})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, a := range page.Accounts {
			out = append(out, scopegen.Account{ID: aws.ToString(a.Id), Name: aws.ToString(a.Name), Status: stateOf(a),
				Path: parent.path, Units: parent.ids})
		}
		if token = page.NextToken; token == nil {
			return out, nil
		}
	}
}

// stateOf is the account's State, or its Status when AWS sent no State
// (the model retires Status in favour of State).
func stateOf(a types.Account) string {
	if a.State != "" {
		return string(a.State)
	}
	return string(a.Status)
}

func (r Reader) tags(ctx context.Context, account string) (map[string]string, error) {
	tags := map[string]string{}
	var token *string
	for {
		var page *organizations.ListTagsForResourceOutput
		err := r.Calls.Read(ctx, pace.Reads, "ListTagsForResource", func(ctx context.Context) (err error) {
			page, err = r.API.ListTagsForResource(ctx, &organizations.ListTagsForResourceInput{ResourceId: aws.String(account), NextToken: token})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, t := range page.Tags {
			tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		if token = page.NextToken; token == nil {
			return tags, nil
		}
	}
}
