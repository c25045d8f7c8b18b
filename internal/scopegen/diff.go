package scopegen

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// DiffSchema is the schema of the machine-readable diff `scopes generate
// --check --diff-file` writes (docs/many-accounts.md, "The drift check").
const DiffSchema = "sops-aws-sync/scopes-diff/v1"

// The changes of an account between the committed scopes file and the
// organization now (AccountChange.Change), in the order a diff lists them.
const (
	// ChangeAdded: a selected ACTIVE account that has no scope in the
	// committed file (new in the organization, moved or tagged into the
	// selection, or reinstated).
	ChangeAdded = "added"
	// ChangeNotActive: an account with scopes in the committed file whose
	// State is no longer ACTIVE (SUSPENDED, PENDING_CLOSURE, CLOSED, …).
	ChangeNotActive = "not-active"
	// ChangeMoved: an ACTIVE account with scopes in the committed file
	// that the selection no longer keeps: moved out of every --ou (Why
	// "ou") or no longer carrying every --account-tag (Why "tags").
	ChangeMoved = "moved"
	// ChangeChanged: a selected ACTIVE account whose scopes differ (a
	// name, source root or prefix the template derives from an account
	// renamed or moved to another OU, a Region or role changed).
	ChangeChanged = "changed"
	// ChangeGone: scopes in the committed file of an account the
	// organization no longer lists (it left, or was closed and removed).
	ChangeGone = "gone"
)

var changeOrder = []string{ChangeAdded, ChangeNotActive, ChangeMoved, ChangeChanged, ChangeGone}

// MaxCommittedBytes bounds the committed scopes file Compare reads.
const MaxCommittedBytes = 1 << 20

// Diff is how a committed scopes file differs from the file the
// organization gives now (Compare): a pure value, the same for the same
// inputs.
type Diff struct {
	Schema string `json:"schema"`
	// Differs is true when the committed bytes are not the generated ones.
	Differs bool `json:"differs"`
	// Accounts are the accounts whose scopes change, in changeOrder, then
	// by OU path and name.
	Accounts []AccountChange `json:"accounts"`
	// Scopes are the scope names the regeneration adds, removes or
	// changes, each sorted.
	Scopes ScopeChanges `json:"scopes"`
}

// AccountChange is one account of a Diff. Account ids are never in it.
type AccountChange struct {
	Change string `json:"change"`
	// Why says which selection no longer keeps a moved account: "ou" or
	// "tags" ("" for other changes).
	Why string `json:"why,omitempty"`
	// Name, Status and Path are the account's as the organization lists
	// it now ("" for a gone account).
	Name   string `json:"name"`
	Status string `json:"status"`
	Path   string `json:"ou_path"`
	// Scopes are the account's scopes the regeneration adds (added),
	// removes (not-active, moved, gone) or changes (changed), sorted.
	Scopes []string `json:"scopes"`
}

// ScopeChanges are the scope names of a Diff.
type ScopeChanges struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// committedScope is one entry of the committed file's scopes list, the
// keys scopes generate writes; other keys are ignored.
type committedScope struct {
	Name       string `yaml:"name"`
	SourceRoot string `yaml:"source-root"`
	Prefix     string `yaml:"secret-prefix"`
	Region     string `yaml:"aws-region"`
	Role       string `yaml:"role-arn"`
	PlanRole   string `yaml:"plan-role-arn"`
}

// parseCommitted reads the scopes list of a committed scopes file: the
// entries by name. A file over MaxCommittedBytes, not YAML, without a
// scopes list, or with an entry without a name or a name twice is
// config:scopes-file.
func parseCommitted(b []byte) (map[string]committedScope, error) {
	bad := func(why string) error {
		return fail(diag.ConfigScopesFile, "the committed scopes file (--output) %s", why)
	}
	if len(b) > MaxCommittedBytes {
		return nil, bad("is larger than 1 MiB")
	}
	var doc struct {
		Scopes *[]committedScope `yaml:"scopes"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, bad("is not a YAML mapping with a scopes list")
	}
	if doc.Scopes == nil {
		return nil, bad("has no scopes list")
	}
	out := make(map[string]committedScope, len(*doc.Scopes))
	for _, s := range *doc.Scopes {
		if s.Name == "" {
			return nil, bad("has a scope without a name")
		}
		if _, dup := out[s.Name]; dup {
			return nil, bad("names a scope twice")
		}
		out[s.Name] = s
	}
	return out, nil
}

// accountOfRole is the account id of a role ARN
// (arn:<partition>:iam::<account>:role/<name>), "" for anything else.
func accountOfRole(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "iam" || len(parts[4]) != 12 || !strings.HasPrefix(parts[5], "role/") {
		return ""
	}
	return parts[4]
}

// Compare is the drift check of SPEC §17: how the committed scopes file
// differs from out, the file Generate made from org for req. Each
// account whose scopes the regeneration adds, removes or changes is one
// AccountChange, found by the account id of its scopes' role-arn; a
// committed scope without a role ARN counts only in Scopes. A committed
// file that cannot be read is config:scopes-file.
func Compare(committed []byte, org Org, req Request, out Output) (Diff, error) {
	entries, err := parseCommitted(committed)
	if err != nil {
		return Diff{}, err
	}
	d := Diff{Schema: DiffSchema, Differs: !bytes.Equal(committed, out.Bytes),
		Scopes: ScopeChanges{Added: []string{}, Removed: []string{}, Changed: []string{}}, Accounts: []AccountChange{}}
	generated := map[string]scope{}
	genBy := map[string][]string{} // account id → generated scope names
	var genOrder []string          // account ids in the generated file's order
	for _, s := range out.scopes {
		generated[s.name] = s
		if genBy[s.account.ID] == nil {
			genOrder = append(genOrder, s.account.ID)
		}
		genBy[s.account.ID] = append(genBy[s.account.ID], s.name)
	}
	comBy := map[string][]string{} // account id → committed scope names
	touched := map[string]bool{}   // scope names added, removed or changed
	for name, c := range entries {
		if id := accountOfRole(c.Role); id != "" {
			comBy[id] = append(comBy[id], name)
		}
		g, ok := generated[name]
		switch {
		case !ok:
			d.Scopes.Removed = append(d.Scopes.Removed, name)
			touched[name] = true
		case g.sourceRoot != c.SourceRoot || g.prefix != c.Prefix || g.region != c.Region || g.role != c.Role || g.planRole != c.PlanRole:
			d.Scopes.Changed = append(d.Scopes.Changed, name)
			touched[name] = true
		}
	}
	for name := range generated {
		if _, ok := entries[name]; !ok {
			d.Scopes.Added = append(d.Scopes.Added, name)
			touched[name] = true
		}
	}
	byID := map[string]Account{}
	for _, a := range org.Accounts {
		byID[a.ID] = a
	}
	of := func(change string, a Account, names []string) AccountChange {
		names = slices.Clone(names)
		slices.Sort(names)
		return AccountChange{Change: change, Name: a.Name, Status: a.Status, Path: a.Path, Scopes: names}
	}
	for _, id := range genOrder {
		a := byID[id]
		if len(comBy[id]) == 0 {
			d.Accounts = append(d.Accounts, of(ChangeAdded, a, genBy[id]))
			continue
		}
		var names []string
		for _, n := range append(slices.Clone(genBy[id]), comBy[id]...) {
			if touched[n] && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			d.Accounts = append(d.Accounts, of(ChangeChanged, a, names))
		}
	}
	for id, names := range comBy {
		if genBy[id] != nil {
			continue
		}
		a, listed := byID[id]
		switch {
		case !listed:
			d.Accounts = append(d.Accounts, of(ChangeGone, Account{}, names))
		case a.Status != StatusActive:
			d.Accounts = append(d.Accounts, of(ChangeNotActive, a, names))
		case !Selected(a, req.OUs):
			c := of(ChangeMoved, a, names)
			c.Why = "ou"
			d.Accounts = append(d.Accounts, c)
		default: // selected and ACTIVE but no scope: the tags no longer match
			c := of(ChangeMoved, a, names)
			c.Why = "tags"
			d.Accounts = append(d.Accounts, c)
		}
	}
	slices.SortFunc(d.Accounts, func(a, b AccountChange) int {
		return cmp.Or(cmp.Compare(slices.Index(changeOrder, a.Change), slices.Index(changeOrder, b.Change)),
			cmp.Compare(a.Path, b.Path), cmp.Compare(a.Name, b.Name), slices.Compare(a.Scopes, b.Scopes))
	})
	for _, l := range [][]string{d.Scopes.Added, d.Scopes.Removed, d.Scopes.Changed} {
		slices.Sort(l)
	}
	return d, nil
}

// JSON is the diff file's bytes: indented JSON and a final newline.
func (d Diff) JSON() []byte {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		panic("scopegen: a Diff always encodes: " + err.Error())
	}
	return append(b, '\n')
}

// what says an account change in words.
func (c AccountChange) what() string {
	switch c.Change {
	case ChangeAdded:
		return "added: ACTIVE and selected, no scope yet"
	case ChangeNotActive:
		return "suspended or closed: " + c.Status + ", not ACTIVE"
	case ChangeMoved:
		if c.Why == "tags" {
			return "moved: no longer carries every --account-tag"
		}
		return "moved: no longer under any --ou"
	case ChangeChanged:
		return "its scopes changed (renamed, moved to another OU, or the template changed)"
	}
	return "gone: the organization no longer lists it"
}

// verb is what regenerating does to the account's scopes.
func (c AccountChange) verb() string {
	switch c.Change {
	case ChangeAdded:
		return "to add"
	case ChangeChanged:
		return "to change"
	}
	return "to remove"
}

func where(c AccountChange) string {
	if c.Change == ChangeGone {
		return "no OU"
	}
	if c.Path == "" {
		return "the root"
	}
	return "OU " + c.Path
}

// Lines are the diff in words, one line per account and a summary line,
// for the command's output: names, statuses and OU paths, never account
// ids.
func (d Diff) Lines(file string) []string {
	var out []string
	for _, c := range d.Accounts {
		name := fmt.Sprintf("%q", commentSafe(c.Name))
		if c.Change == ChangeGone {
			name = "(no longer listed)"
		}
		out = append(out, fmt.Sprintf("scopes generate --check: account %s (in %s) %s; scopes %s: %s",
			name, commentSafe(where(c)), c.what(), c.verb(), strings.Join(c.Scopes, ", ")))
	}
	if !d.Differs {
		return append(out, "scopes generate --check: "+file+" is what the organization gives now")
	}
	return append(out, fmt.Sprintf("scopes generate --check: %s differs from what the organization gives now (%d accounts; scopes: %d to add, %d to remove, %d to change): regenerate it in a reviewed change",
		file, len(d.Accounts), len(d.Scopes.Added), len(d.Scopes.Removed), len(d.Scopes.Changed)))
}

// Markdown is the diff as a section of the drift issue: a heading, one
// sentence, and a table of the accounts (names escaped, never an account
// id); a diff that does not differ says so in one sentence.
func (d Diff) Markdown(file string) string {
	var b strings.Builder
	b.WriteString("### Scopes and AWS Organizations\n\n")
	f := "`" + strings.ReplaceAll(file, "`", "'") + "`"
	if !d.Differs {
		b.WriteString("The committed scopes file " + f + " is what `scopes generate` writes from the organization now.\n")
		return b.String()
	}
	b.WriteString("The committed scopes file " + f + " differs from what `scopes generate` writes from the organization now: " +
		"regenerate it in a reviewed change (docs/many-accounts.md). Until then the accounts below keep the scopes the file gives them.\n")
	if len(d.Accounts) > 0 {
		b.WriteString("\n| Account | Change | Status | OU | Scopes |\n|---|---|---|---|---|\n")
		for _, c := range d.Accounts {
			name := mdText(c.Name)
			if c.Change == ChangeGone {
				name = "_(no longer listed)_"
			}
			scopes := make([]string, len(c.Scopes))
			for i, s := range c.Scopes {
				scopes[i] = "`" + strings.ReplaceAll(s, "`", "'") + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s %s |\n", name, mdText(c.what()), mdText(cmp.Or(c.Status, "-")),
				mdText(where(c)), c.verb(), strings.Join(scopes, ", "))
		}
	} else {
		b.WriteString("\nNo account's scopes change: the file's other lines (its header, the template's defaults) differ.\n")
	}
	return b.String()
}

// mdText is s with every ASCII punctuation character that Markdown reads
// escaped by a backslash and line breaks made spaces: an account name
// (any printable characters) shows as itself in a table cell.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range commentSafe(s) {
		if r < 0x80 && strings.ContainsRune("\\`*_{}[]<>()#+-.!|~&\"'", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
