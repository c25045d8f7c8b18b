package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	orgtypes "github.com/aws/aws-sdk-go-v2/service/organizations/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// SPEC §17, `scopes generate --from-organizations`: the real binary reads
// an organization the emulator holds, built through the real SDK.

// orgClient is the real Organizations client of the CLI's own credentials
// (AKIDE2E: the emulator's default account, which becomes the management
// account).
func orgClient(e *emu) *organizations.Client {
	return organizations.New(organizations.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDE2E", awsSecretKey, "")})
}

type builtOrg struct {
	root, platform, prod, dev string
	prodAccounts              []string // names, in creation order
	suspended                 string   // name of the closed prod account
	untagged                  []string // prod accounts without sync=yes
}

// buildOrg makes root → platform → {prod, dev}: 22 accounts in prod (two
// pages of ListAccountsForParent), 20 of them tagged sync=yes, one of
// those closed (SUSPENDED); one account in dev, one in the root.
func buildOrg(t *testing.T, e *emu) builtOrg {
	ctx := context.Background()
	c := orgClient(e)
	_, err := c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{})
	require.NoError(t, err)
	roots, err := c.ListRoots(ctx, &organizations.ListRootsInput{})
	require.NoError(t, err)
	o := builtOrg{root: aws.ToString(roots.Roots[0].Id)}
	ou := func(parent, name string) string {
		out, err := c.CreateOrganizationalUnit(ctx, &organizations.CreateOrganizationalUnitInput{ParentId: aws.String(parent), Name: aws.String(name)})
		require.NoError(t, err)
		return aws.ToString(out.OrganizationalUnit.Id)
	}
	o.platform = ou(o.root, "platform")
	o.prod, o.dev = ou(o.platform, "prod"), ou(o.platform, "dev")
	account := func(name, parent string, tags ...orgtypes.Tag) string {
		out, err := c.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(name), Email: aws.String(strings.ReplaceAll(strings.ToLower(name), " ", ".") + "@example.com"), Tags: tags})
		require.NoError(t, err)
		st, err := c.DescribeCreateAccountStatus(ctx, &organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: out.CreateAccountStatus.Id})
		require.NoError(t, err)
		require.Equal(t, orgtypes.CreateAccountStateSucceeded, st.CreateAccountStatus.State)
		id := aws.ToString(st.CreateAccountStatus.AccountId)
		if parent != o.root {
			_, err = c.MoveAccount(ctx, &organizations.MoveAccountInput{AccountId: aws.String(id), SourceParentId: aws.String(o.root), DestinationParentId: aws.String(parent)})
			require.NoError(t, err)
		}
		return id
	}
	sync := orgtypes.Tag{Key: aws.String("sync"), Value: aws.String("yes")}
	for i := range 22 {
		name := fmt.Sprintf("Prod App %02d", i)
		if i >= 20 {
			account(name, o.prod)
			o.untagged = append(o.untagged, name)
		} else {
			id := account(name, o.prod, sync)
			if i == 7 {
				_, err := c.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String(id)})
				require.NoError(t, err)
				o.suspended = name
			}
		}
		o.prodAccounts = append(o.prodAccounts, name)
	}
	account("Dev Sandbox", o.dev, sync)
	account("Shared Tools", o.root, sync)
	return o
}

func TestScopesGenerate_FromOrganizations(t *testing.T) {
	need(t)
	e := startEmulator(t)
	org := buildOrg(t, e)
	f := newFixture(t)
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "template.yaml")
	require.NoError(t, os.WriteFile(tmpl, []byte(`name: "{account-name}-{region}"
source-root: "secrets/{ou-path}/{account-name}/{region}"
secret-prefix: "{account-name}"
defaults:
  repository-id: `+f.RepoID+`
  allow-empty: true
`), 0o600))
	env := []string{"AWS_ENDPOINT_URL_ORGANIZATIONS=" + e.URL}
	generate := func(out string, extra ...string) result {
		args := append([]string{"scopes", "generate", "--from-organizations", "--regions", "eu-west-1,us-east-1",
			"--role-name", "secrets-sync", "--plan-role-name", "secrets-plan", "--template", tmpl, "--output", out}, extra...)
		return f.run(e, runOpts{Env: env}, args...)
	}

	first, second := filepath.Join(dir, "scopes-1.yaml"), filepath.Join(dir, "scopes-2.yaml")
	before := e.stats().Calls
	r := generate(first, "--ou", "platform/prod", "--account-tag", "sync=yes")
	require.Equal(t, 0, r.Code, "stderr: %s", r.Stderr)
	after := e.stats().Calls
	// Two pages for prod's 22 accounts; tags only for prod's accounts.
	// The page-count minimum: one page per unit (root, platform, dev), two
	// for prod's 22 accounts.
	assert.Equal(t, int64(5), after["organizations:ListAccountsForParent"]-before["organizations:ListAccountsForParent"])
	assert.Equal(t, int64(4), after["organizations:ListOrganizationalUnitsForParent"]-before["organizations:ListOrganizationalUnitsForParent"])
	assert.Equal(t, int64(22), after["organizations:ListTagsForResource"]-before["organizations:ListTagsForResource"])
	assert.Zero(t, after["organizations:CreateAccount"]-before["organizations:CreateAccount"], "generate only reads")

	// The suspended account is left out and named.
	assert.Contains(t, r.Stderr, `left out account "`+org.suspended+`" (SUSPENDED, in OU platform/prod)`)
	b, err := os.ReadFile(first)
	require.NoError(t, err)
	text := string(b)
	assert.Contains(t, text, "#   "+org.suspended+" (SUSPENDED, OU platform/prod)")
	slug := func(name string) string { return strings.ReplaceAll(strings.ToLower(name), " ", "-") }
	for _, name := range org.prodAccounts {
		want := name != org.suspended && !contains(org.untagged, name)
		for _, region := range []string{"eu-west-1", "us-east-1"} {
			assert.Equal(t, want, strings.Contains(text, "name: "+slug(name)+"-"+region+"\n"), "%s in %s", name, region)
		}
	}
	assert.NotContains(t, text, "dev-sandbox", "outside --ou")
	assert.NotContains(t, text, "shared-tools", "outside --ou")
	assert.Equal(t, 2*19, strings.Count(text, "  - name: "), "19 ACTIVE tagged prod accounts × 2 Regions")
	assert.Contains(t, text, "source-root: secrets/platform/prod/prod-app-00/eu-west-1\n")
	assert.Contains(t, text, ":role/secrets-plan\n")

	// Generated twice from the same organization: the same bytes.
	r = generate(second, "--ou", "platform/prod", "--account-tag", "sync=yes")
	require.Equal(t, 0, r.Code, "stderr: %s", r.Stderr)
	b2, err := os.ReadFile(second)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(b2), "same organization, same bytes")

	// An OU by id: dev alone.
	byID := filepath.Join(dir, "dev.yaml")
	r = generate(byID, "--ou", org.dev)
	require.Equal(t, 0, r.Code, "stderr: %s", r.Stderr)
	dev, err := os.ReadFile(byID)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(dev), "  - name: dev-sandbox-"), string(dev))
	assert.Equal(t, 2, strings.Count(string(dev), "  - name: "), string(dev))

	// validate accepts the generated file as any hand-written config: one
	// scope holds a document, the others are empty (allow-empty).
	f.writeDoc("secrets/platform/prod/prod-app-00/eu-west-1/db.sops.json", `{"password":"CANARY-orgscopes"}`, "")
	f.commit("one document")
	v := f.run(nil, runOpts{}, "validate", "--config", first)
	assert.Equal(t, 0, v.Code, "validate of the generated file: %s %s", v.Stdout, v.Stderr)

	// A typo in --ou selects nothing silently: config:unknown-ou, no file.
	typo := filepath.Join(dir, "typo.yaml")
	r = generate(typo, "--ou", "platform/prdo")
	assert.Equal(t, 3, r.Code)
	assert.Contains(t, r.Stderr, "config:unknown-ou")
	assert.NoFileExists(t, typo)
}

func TestScopesGenerate_OrganizationsRefusedIsExit5NothingWritten(t *testing.T) {
	need(t)
	e := startEmulator(t)
	buildOrg(t, e)
	e.setFaults(emulator.Faults{Denied: []string{"organizations:ListOrganizationalUnitsForParent"}})
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "scopes.yaml")
	r := f.run(e, runOpts{Env: []string{"AWS_ENDPOINT_URL_ORGANIZATIONS=" + e.URL}},
		"scopes", "generate", "--from-organizations", "--regions", "eu-west-1", "--role-name", "secrets-sync", "--output", out)
	assert.Equal(t, 5, r.Code, "stderr: %s", r.Stderr)
	assert.Contains(t, r.Stderr, "observe:organizations")
	assert.Contains(t, r.Stderr, "ListOrganizationalUnitsForParent answered AccessDeniedException")
	assert.NoFileExists(t, out)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestScopesGenerate_CheckNamesAddedSuspendedAndMovedAccounts: the drift
// check of SPEC §17 with the real binary. `scopes generate --check`
// compares the committed file with the organization through the read
// role (--organizations-role-arn, one AssumeRole): unchanged, exit 0 and
// no difference; after an account is added, one closed (SUSPENDED) and
// one moved out of --ou, exit 2, the committed file untouched, and the
// JSON diff, the Markdown section and the lines name the three accounts
// (never an account id).
func TestScopesGenerate_CheckNamesAddedSuspendedAndMovedAccounts(t *testing.T) {
	need(t)
	e := startEmulator(t)
	ctx := context.Background()
	c := orgClient(e)
	_, err := c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{})
	require.NoError(t, err)
	desc, err := c.DescribeOrganization(ctx, &organizations.DescribeOrganizationInput{})
	require.NoError(t, err)
	roots, err := c.ListRoots(ctx, &organizations.ListRootsInput{})
	require.NoError(t, err)
	root := aws.ToString(roots.Roots[0].Id)
	ou, err := c.CreateOrganizationalUnit(ctx, &organizations.CreateOrganizationalUnitInput{ParentId: aws.String(root), Name: aws.String("prod")})
	require.NoError(t, err)
	prod := aws.ToString(ou.OrganizationalUnit.Id)
	ids := map[string]string{}
	add := func(name string) {
		out, err := c.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(name), Email: aws.String(name + "@example.com")})
		require.NoError(t, err)
		st, err := c.DescribeCreateAccountStatus(ctx, &organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: out.CreateAccountStatus.Id})
		require.NoError(t, err)
		ids[name] = aws.ToString(st.CreateAccountStatus.AccountId)
		_, err = c.MoveAccount(ctx, &organizations.MoveAccountInput{AccountId: aws.String(ids[name]), SourceParentId: aws.String(root), DestinationParentId: aws.String(prod)})
		require.NoError(t, err)
	}
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		add(n)
	}
	f := newFixture(t)
	dir := t.TempDir()
	committed := filepath.Join(dir, "sops-aws-sync.yaml")
	env := []string{"AWS_ENDPOINT_URL_ORGANIZATIONS=" + e.URL, "AWS_ENDPOINT_URL_STS=" + e.URL}
	readRole := "arn:aws:iam::" + aws.ToString(desc.Organization.MasterAccountId) + ":role/organizations-read"
	generate := func(extra ...string) result {
		return f.run(e, runOpts{Env: env}, append([]string{"scopes", "generate", "--from-organizations", "--ou", "prod",
			"--regions", "eu-west-1", "--role-name", "secrets-sync", "--output", committed}, extra...)...)
	}
	r := generate()
	require.Equal(t, 0, r.Code, r.Stderr)
	before, err := os.ReadFile(committed)
	require.NoError(t, err)

	diffJSON, diffMD := filepath.Join(dir, "diff.json"), filepath.Join(dir, "diff.md")
	assumed := e.stats().Calls["AssumeRole"]
	r = generate("--check", "--organizations-role-arn", readRole, "--diff-file", diffJSON, "--diff-markdown", diffMD)
	require.Equal(t, 0, r.Code, "unchanged organization: %s %s", r.Stdout, r.Stderr)
	assert.Equal(t, assumed+1, e.stats().Calls["AssumeRole"], "one AssumeRole of the read role")
	assert.Contains(t, r.Stdout, "scopes generate --check: "+committed+" is what the organization gives now")
	raw, err := os.ReadFile(diffJSON)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"differs": false`)

	add("delta")
	_, err = c.CloseAccount(ctx, &organizations.CloseAccountInput{AccountId: aws.String(ids["bravo"])})
	require.NoError(t, err)
	_, err = c.MoveAccount(ctx, &organizations.MoveAccountInput{AccountId: aws.String(ids["charlie"]), SourceParentId: aws.String(prod), DestinationParentId: aws.String(root)})
	require.NoError(t, err)
	r = generate("--check", "--organizations-role-arn", readRole, "--diff-file", diffJSON, "--diff-markdown", diffMD)
	require.Equal(t, 2, r.Code, "the organization changed: %s %s", r.Stdout, r.Stderr)
	after, err := os.ReadFile(committed)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "--check never writes --output")
	raw, err = os.ReadFile(diffJSON)
	require.NoError(t, err)
	var d struct {
		Schema   string
		Differs  bool
		Accounts []struct{ Change, Why, Name, Status string }
	}
	require.NoError(t, json.Unmarshal(raw, &d))
	assert.Equal(t, "sops-aws-sync/scopes-diff/v1", d.Schema)
	assert.True(t, d.Differs)
	type acc = struct{ Change, Why, Name, Status string }
	assert.Equal(t, []acc{{"added", "", "delta", "ACTIVE"}, {"not-active", "", "bravo", "SUSPENDED"}, {"moved", "ou", "charlie", "ACTIVE"}}, d.Accounts)
	md, err := os.ReadFile(diffMD)
	require.NoError(t, err)
	for _, w := range []string{"| delta | added", "| bravo | suspended or closed: SUSPENDED", "| charlie | moved: no longer under any \\-\\-ou"} {
		assert.Contains(t, string(md), w)
	}
	for _, w := range []string{`account "delta" (in OU prod) added`, `account "bravo" (in OU prod) suspended or closed`, `account "charlie" (in the root) moved`} {
		assert.Contains(t, r.Stdout, w)
	}
	for _, id := range ids {
		assert.NotContains(t, r.Stdout+r.Stderr+string(raw)+string(md), id, "account ids are never printed")
	}

	// A refused read role: credentials:assume-role, exit 5, nothing written.
	e.setFaults(emulator.Faults{STSRefuseAccounts: []string{aws.ToString(desc.Organization.MasterAccountId)}})
	require.NoError(t, os.Remove(diffJSON))
	r = generate("--check", "--organizations-role-arn", readRole, "--diff-file", diffJSON)
	assert.Equal(t, 5, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "credentials:assume-role")
	assert.NoFileExists(t, diffJSON)
}
