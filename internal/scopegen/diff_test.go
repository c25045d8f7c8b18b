package scopegen

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// diffOrg is an organization of accounts in OU Platform (ou-p) and the
// root; mutate changes it before the second generation.
func diffOrg(mutate func(*Org)) Org {
	o := Org{
		Units: map[string]string{"r-root": "", "ou-p": "Platform"},
		Accounts: []Account{
			{ID: "111111111111", Name: "Payments API", Status: "ACTIVE", Path: "Platform", Units: []string{"r-root", "ou-p"}, Tags: map[string]string{"sync": "yes"}},
			{ID: "222222222222", Name: "tools", Status: "ACTIVE", Path: "Platform", Units: []string{"r-root", "ou-p"}, Tags: map[string]string{"sync": "yes"}},
			{ID: "333333333333", Name: "legacy", Status: "SUSPENDED", Path: "Platform", Units: []string{"r-root", "ou-p"}, Tags: map[string]string{"sync": "yes"}},
			{ID: "555555555555", Name: "web", Status: "ACTIVE", Path: "Platform", Units: []string{"r-root", "ou-p"}, Tags: map[string]string{"sync": "yes"}},
			{ID: "666666666666", Name: "old", Status: "ACTIVE", Path: "Platform", Units: []string{"r-root", "ou-p"}, Tags: map[string]string{"sync": "yes"}},
		},
	}
	if mutate != nil {
		mutate(&o)
	}
	return o
}

func account(o *Org, name string) *Account {
	i := slices.IndexFunc(o.Accounts, func(a Account) bool { return a.Name == name })
	return &o.Accounts[i]
}

func generated(t *testing.T, o Org, req Request) Output {
	t.Helper()
	out, err := Generate(o, req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompare_SameOrganizationDoesNotDiffer: the file generated from an
// organization compared with a generation of the same organization (its
// accounts in another order) does not differ and names no account.
func TestCompare_SameOrganizationDoesNotDiffer(t *testing.T) {
	req := Request{Template: DefaultTemplate(), Regions: []string{"eu-west-1"}, RoleName: "sync", OUs: []string{"Platform"}}
	committed := generated(t, diffOrg(nil), req).Bytes
	o := diffOrg(func(o *Org) { slices.Reverse(o.Accounts) })
	d, err := Compare(committed, o, req, generated(t, o, req))
	if err != nil {
		t.Fatal(err)
	}
	if d.Differs || len(d.Accounts) != 0 || len(d.Scopes.Added)+len(d.Scopes.Removed)+len(d.Scopes.Changed) != 0 {
		t.Fatalf("diff of the same organization: %+v", d)
	}
	if got := d.Lines("scopes.yaml"); len(got) != 1 || got[0] != "scopes generate --check: scopes.yaml is what the organization gives now" {
		t.Fatalf("lines %q", got)
	}
	if md := d.Markdown("scopes.yaml"); !strings.Contains(md, "is what `scopes generate` writes from the organization now") {
		t.Fatalf("markdown %q", md)
	}
}

// TestCompare_NamesAddedSuspendedMovedChangedAndGoneAccounts: each kind
// of change of SPEC §17's drift check, found by the account id of the
// committed scopes' role ARNs, listed in the diff's order, in its JSON,
// its lines and its Markdown, never with an account id.
func TestCompare_NamesAddedSuspendedMovedChangedAndGoneAccounts(t *testing.T) {
	req := Request{Template: DefaultTemplate(), Regions: []string{"eu-west-1"}, RoleName: "sync", OUs: []string{"Platform"}}
	committed := generated(t, diffOrg(nil), req).Bytes
	now := diffOrg(func(o *Org) {
		account(o, "Payments API").Status = "SUSPENDED"
		tools := account(o, "tools")
		tools.Path, tools.Units = "", []string{"r-root"}
		account(o, "legacy").Status = "ACTIVE"
		account(o, "web").Name = "web app"
		o.Accounts = slices.DeleteFunc(o.Accounts, func(a Account) bool { return a.Name == "old" })
		o.Accounts = append(o.Accounts, Account{ID: "777777777777", Name: "data|lake", Status: "ACTIVE", Path: "Platform", Units: []string{"r-root", "ou-p"}})
	})
	d, err := Compare(committed, now, req, generated(t, now, req))
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ change, why, name, status string }
	var got []row
	for _, c := range d.Accounts {
		got = append(got, row{c.Change, c.Why, c.Name, c.Status})
	}
	want := []row{
		{ChangeAdded, "", "data|lake", "ACTIVE"},
		{ChangeAdded, "", "legacy", "ACTIVE"},
		{ChangeNotActive, "", "Payments API", "SUSPENDED"},
		{ChangeMoved, "ou", "tools", "ACTIVE"},
		{ChangeChanged, "", "web app", "ACTIVE"},
		{ChangeGone, "", "", ""},
	}
	if !d.Differs || !slices.Equal(got, want) {
		t.Fatalf("accounts\n got %+v\nwant %+v", got, want)
	}
	if s := d.Accounts[4].Scopes; !slices.Equal(s, []string{"web-app-eu-west-1", "web-eu-west-1"}) {
		t.Fatalf("changed account's scopes %q", s)
	}
	if s := d.Accounts[5].Scopes; !slices.Equal(s, []string{"old-eu-west-1"}) {
		t.Fatalf("gone account's scopes %q", s)
	}
	wantScopes := ScopeChanges{Added: []string{"data-lake-eu-west-1", "legacy-eu-west-1", "web-app-eu-west-1"},
		Removed: []string{"old-eu-west-1", "payments-api-eu-west-1", "tools-eu-west-1", "web-eu-west-1"}, Changed: []string{}}
	if !slices.Equal(d.Scopes.Added, wantScopes.Added) || !slices.Equal(d.Scopes.Removed, wantScopes.Removed) || len(d.Scopes.Changed) != 0 {
		t.Fatalf("scopes %+v", d.Scopes)
	}
	var back Diff
	if err := json.Unmarshal(d.JSON(), &back); err != nil || back.Schema != DiffSchema || len(back.Accounts) != 6 {
		t.Fatalf("JSON %s: %v", d.JSON(), err)
	}
	lines := strings.Join(d.Lines("scopes.yaml"), "\n")
	md := d.Markdown("scopes.yaml")
	for _, w := range []string{`"Payments API" (in OU Platform) suspended or closed: SUSPENDED, not ACTIVE; scopes to remove: payments-api-eu-west-1`,
		`"tools" (in the root) moved: no longer under any --ou; scopes to remove: tools-eu-west-1`,
		`"legacy" (in OU Platform) added`, "(no longer listed) (in no OU) gone", "6 accounts; scopes: 3 to add, 4 to remove, 0 to change"} {
		if !strings.Contains(lines, w) {
			t.Errorf("lines lack %q:\n%s", w, lines)
		}
	}
	for _, w := range []string{"| data\\|lake | added", "| Payments API | suspended or closed: SUSPENDED, not ACTIVE |", "`tools-eu-west-1`"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
	for _, id := range []string{"111111111111", "222222222222", "555555555555", "666666666666", "777777777777"} {
		if strings.Contains(lines+md+string(d.JSON()), id) {
			t.Errorf("account id %s printed", id)
		}
	}
}

// TestCompare_TagSelectionNoLongerKeepsAnAccount: an account that lost a
// tag --account-tag asks for is moved, why tags.
func TestCompare_TagSelectionNoLongerKeepsAnAccount(t *testing.T) {
	req := Request{Template: DefaultTemplate(), Regions: []string{"eu-west-1"}, RoleName: "sync", Tags: map[string]string{"sync": "yes"}}
	committed := generated(t, diffOrg(nil), req).Bytes
	now := diffOrg(func(o *Org) { account(o, "tools").Tags = nil })
	d, err := Compare(committed, now, req, generated(t, now, req))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Accounts) != 1 || d.Accounts[0].Change != ChangeMoved || d.Accounts[0].Why != "tags" || d.Accounts[0].Name != "tools" {
		t.Fatalf("accounts %+v", d.Accounts)
	}
	if !strings.Contains(d.Markdown("f"), "moved: no longer carries every \\-\\-account\\-tag") {
		t.Fatal(d.Markdown("f"))
	}
}

// TestCompare_DefaultsChangedDifferWithoutAnAccount: bytes that differ
// only outside the scopes list differ with no account named.
func TestCompare_DefaultsChangedDifferWithoutAnAccount(t *testing.T) {
	req := Request{Template: DefaultTemplate(), Regions: []string{"eu-west-1"}, RoleName: "sync"}
	out := generated(t, diffOrg(nil), req)
	d, err := Compare(append([]byte("# edited by hand\n"), out.Bytes...), diffOrg(nil), req, out)
	if err != nil || !d.Differs || len(d.Accounts) != 0 || !strings.Contains(d.Markdown("f"), "No account's scopes change") {
		t.Fatalf("%+v %v", d, err)
	}
}

// TestParseCommitted_RefusesWhatIsNoScopesFile: config:scopes-file for a
// file that is not YAML, has no scopes list, a scope without a name, a
// name twice, or is over 1 MiB.
func TestParseCommitted_RefusesWhatIsNoScopesFile(t *testing.T) {
	for name, b := range map[string][]byte{
		"not YAML":  []byte("scopes: [\n"),
		"no scopes": []byte("repository-id: x\n"),
		"no name":   []byte("scopes:\n  - source-root: a\n"),
		"twice":     []byte("scopes:\n  - name: a\n  - name: a\n"),
		"too large": append([]byte("scopes: []\n#"), make([]byte, MaxCommittedBytes)...),
		"a list":    []byte("- a\n"),
	} {
		if _, err := parseCommitted(b); classOf(err) != "config:scopes-file" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got, err := parseCommitted([]byte("scopes: []\n")); err != nil || len(got) != 0 {
		t.Fatalf("an empty list: %v %v", got, err)
	}
}

// FuzzParseCommitted: any bytes either parse into named scopes or are
// config:scopes-file; never a panic.
func FuzzParseCommitted(f *testing.F) {
	f.Add([]byte("scopes:\n  - name: a\n    role-arn: arn:aws:iam::111111111111:role/x\n"))
	f.Add([]byte("scopes: [\n"))
	f.Add([]byte("scopes: {}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseCommitted(b)
		if err != nil {
			if classOf(err) != "config:scopes-file" {
				t.Fatalf("class %q", classOf(err))
			}
			return
		}
		for name := range got {
			if name == "" {
				t.Fatal("a scope without a name")
			}
			_ = accountOfRole(got[name].Role)
		}
	})
}
