// Package scopegen is pure: it turns an organization (its accounts, their
// OU paths, statuses and tags, as AWS Organizations lists them) into the
// bytes of a scopes config file (SPEC §17): the accounts an --ou and
// --account-tag selection keeps, one scope per account and Region, named,
// rooted and prefixed by a template, with the role to assume in each
// account. The file is the `scopes:` form docs/configuration.md describes,
// so validate, plan and sync read it like any hand-written one.
//
// Invariants: no I/O (the organization is read by internal/awsorg, the file
// written by the command); the same organization and request give the same
// bytes whatever order the accounts arrive in (accounts sorted, scopes by
// name); an account that is not ACTIVE is never a scope and is listed in
// Output.LeftOut and in a comment of the file; two accounts never share a
// scope name (config:generated-name, nothing written). Failures are
// diag.Diagnostics of a class of the internal/diag registry.
package scopegen

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// StatusActive is the one account state (AWS Organizations' Account State,
// else its older Status) that makes scopes.
const StatusActive = "ACTIVE"

// Account is one account of the organization.
type Account struct {
	ID     string // 12 digits
	Name   string // the account's name as Organizations lists it
	Status string // ACTIVE, SUSPENDED, PENDING_CLOSURE, …
	// Path is the OU names from the root down to the account's parent,
	// joined by "/" ("" for an account in the root).
	Path string
	// Units are the ids of the root and of every OU from the root down to
	// the account's parent.
	Units []string
	// Tags are the account's tags (nil when they were not listed).
	Tags map[string]string
}

// Org is an organization as the generator needs it.
type Org struct {
	Accounts []Account
	// Units maps the id of the root and of every OU to its path (OU names
	// from the root joined by "/", "" for the root).
	Units map[string]string
}

// Request is what one generation asks for.
type Request struct {
	Template Template
	// Regions are the Regions of every account's scopes (--regions, else
	// the template's), in the order given.
	Regions []string
	// RoleName and PlanRoleName name the role of each account that sync
	// and plan assume (role-arn, plan-role-arn); PlanRoleName "" for none.
	RoleName, PlanRoleName string
	// OUs select accounts under any of these units (an id r-… or ou-…, or
	// a path of OU names from the root); none selects every account.
	OUs []string
	// Tags select accounts that carry every one of these tags.
	Tags map[string]string
}

// Output is a generated file and what it left out.
type Output struct {
	Bytes   []byte
	Scopes  int
	LeftOut []Account // selected accounts that are not ACTIVE, in file order
	scopes  []scope   // the generated scopes, sorted by name (Compare)
}

// fail is a failure of a generation: a diag.Diagnostics of one diagnostic
// of class, whose summary says what is wrong in words that quote no tag
// value and no account id.
func fail(class, format string, args ...any) error {
	return diag.Diagnostics{diag.New(class, diag.Subject{}).WithSummary(fmt.Sprintf(format, args...))}
}

// Selected reports whether account a is under one of the units ous (ids or
// paths; none: every account). The caller checked the units exist
// (CheckUnits).
func Selected(a Account, ous []string) bool {
	if len(ous) == 0 {
		return true
	}
	for _, ou := range ous {
		if isUnitID(ou) {
			if slices.Contains(a.Units, ou) {
				return true
			}
			continue
		}
		p := cleanPath(ou)
		if p == "" || a.Path == p || strings.HasPrefix(a.Path, p+"/") {
			return true
		}
	}
	return false
}

// CheckUnits refuses an --ou that names no unit of org
// (config:unknown-ou): a typo would otherwise select nothing, silently.
func CheckUnits(org Org, ous []string) error {
	for _, ou := range ous {
		found := false
		for id, p := range org.Units {
			if id == ou || (!isUnitID(ou) && p == cleanPath(ou)) {
				found = true
				break
			}
		}
		if !found {
			return fail(diag.ConfigUnknownOU, "an --ou names no root or organizational unit of the organization (an id r-… or ou-…, or a path of OU names from the root such as platform/prod)")
		}
	}
	return nil
}

func isUnitID(s string) bool { return strings.HasPrefix(s, "r-") || strings.HasPrefix(s, "ou-") }

func cleanPath(p string) string { return strings.Trim(p, "/") }

// hasTags reports whether a carries every tag of want.
func hasTags(a Account, want map[string]string) bool {
	for k, v := range want {
		if got, ok := a.Tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// scope is one generated scope.
type scope struct {
	name, sourceRoot, prefix, region, role, planRole string
	account                                          *Account
}

// Generate makes the scopes file of org for req.
func Generate(org Org, req Request) (Output, error) {
	if err := Check(req); err != nil {
		return Output{}, err
	}
	if err := CheckUnits(org, req.OUs); err != nil {
		return Output{}, err
	}
	accounts := slices.Clone(org.Accounts)
	slices.SortFunc(accounts, func(a, b Account) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	var out Output
	var scopes []scope
	for i := range accounts {
		a := &accounts[i]
		if !Selected(*a, req.OUs) || !hasTags(*a, req.Tags) {
			continue
		}
		if a.Status != StatusActive {
			out.LeftOut = append(out.LeftOut, *a)
			continue
		}
		for _, region := range req.Regions {
			s, err := req.Template.scopeOf(a, region, req)
			if err != nil {
				return Output{}, err
			}
			scopes = append(scopes, s)
		}
	}
	slices.SortFunc(scopes, func(a, b scope) int { return cmp.Compare(a.name, b.name) })
	for i := 1; i < len(scopes); i++ {
		if scopes[i].name == scopes[i-1].name {
			return Output{}, fail(diag.ConfigGeneratedName, "two scopes would be named %s (accounts of one name, or a name template without {account-id} or {region})", scopes[i].name)
		}
	}
	b, err := render(req, scopes, out.LeftOut)
	if err != nil {
		return Output{}, err
	}
	out.Bytes, out.Scopes, out.scopes = b, len(scopes), scopes
	return out, nil
}

// Check refuses a request whose Regions or role names break their rules
// (config:template), before anything is read from AWS.
func Check(req Request) error {
	if len(req.Regions) == 0 {
		return fail(diag.ConfigTemplate, "no Region: give --regions or the template's regions")
	}
	seen := map[string]bool{}
	for _, r := range req.Regions {
		if !model.ValidRegion(r) || seen[r] {
			return fail(diag.ConfigTemplate, "a Region of --regions or of the template is not an AWS Region code, or is given twice")
		}
		seen[r] = true
	}
	for i, n := range []string{req.RoleName, req.PlanRoleName} {
		if i == 1 && n == "" {
			continue // no plan role
		}
		if model.ValidateRoleARN("arn:aws:iam::111111111111:role/"+n) != nil {
			return fail(diag.ConfigTemplate, "--role-name and --plan-role-name must be IAM role names, [<path>/]<name> of A-Z a-z 0-9 + = , . @ _ -")
		}
	}
	return nil
}

func (t Template) scopeOf(a *Account, region string, req Request) (scope, error) {
	vals := map[string]string{
		"account-name": slug(a.Name),
		"account-id":   a.ID,
		"region":       region,
		"ou-path":      slugPath(a.Path),
	}
	name := expand(t.Name, vals)
	if model.ValidateScopeName(name) != nil {
		return scope{}, fail(diag.ConfigGeneratedName, "the name template gives %q for an account, which is not a scope name (1-32 characters of a-z, 0-9 and -)", name)
	}
	root, rerr := model.CleanSourceRoot(joinSegments(expand(t.SourceRoot, vals)))
	prefix, perr := model.CleanPrefix(joinSegments(expand(t.SecretPrefix, vals)))
	if rerr != nil || perr != nil || prefix == "" {
		return scope{}, fail(diag.ConfigTemplate, "the source-root or secret-prefix template gives an invalid value for scope %s", name)
	}
	arn := func(role string) string {
		if role == "" {
			return ""
		}
		return "arn:" + cmp.Or(model.PartitionOf(region), "aws") + ":iam::" + a.ID + ":role/" + role
	}
	return scope{name: name, sourceRoot: root, prefix: prefix, region: region,
		role: arn(req.RoleName), planRole: arn(req.PlanRoleName), account: a}, nil
}

// slug is s in lower case with every run of characters outside [a-z0-9]
// made one "-", trimmed of "-" at both ends.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

func slugPath(p string) string {
	var parts []string
	for _, el := range strings.Split(p, "/") {
		if s := slug(el); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "/")
}

// joinSegments drops the empty segments a placeholder left ({ou-path} of
// an account in the root).
func joinSegments(p string) string {
	var parts []string
	for _, el := range strings.Split(p, "/") {
		if el != "" {
			parts = append(parts, el)
		}
	}
	return strings.Join(parts, "/")
}

func expand(tmpl string, vals map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		b.WriteString(tmpl[:i])
		b.WriteString(vals[tmpl[i+1:i+j]]) // placeholders were checked by ParseTemplate
		tmpl = tmpl[i+j+1:]
	}
}

// render writes the file: a header, the template's defaults as the
// top-level keys, then the scopes.
func render(req Request, scopes []scope, leftOut []Account) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("# Generated by `sops-aws-sync scopes generate --from-organizations`: do not edit by hand,\n")
	buf.WriteString("# regenerate it (docs/many-accounts.md). One scope per ACTIVE account and Region.\n")
	if len(leftOut) > 0 {
		buf.WriteString("# Left out, not ACTIVE:\n")
		for _, a := range leftOut {
			fmt.Fprintf(&buf, "#   %s (%s, %s)\n", commentSafe(a.Name), a.Status, pathWords(a.Path))
		}
	}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	if req.Template.Defaults != nil {
		doc.Content = append(doc.Content, req.Template.Defaults.Content...)
	}
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range scopes {
		m := &yaml.Node{Kind: yaml.MappingNode}
		add := func(k, v string) {
			if v != "" {
				m.Content = append(m.Content, str(k), str(v))
			}
		}
		add("name", s.name)
		add("source-root", s.sourceRoot)
		add("secret-prefix", s.prefix)
		add("aws-region", s.region)
		add("role-arn", s.role)
		add("plan-role-arn", s.planRole)
		list.Content = append(list.Content, m)
	}
	doc.Content = append(doc.Content, str("scopes"), list)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fail(diag.ConfigTemplate, "the template's defaults cannot be written as YAML")
	}
	if err := enc.Close(); err != nil {
		return nil, fail(diag.ConfigTemplate, "the template's defaults cannot be written as YAML")
	}
	return buf.Bytes(), nil
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func pathWords(p string) string {
	if p == "" {
		return "in the root"
	}
	return "OU " + commentSafe(p)
}

// commentSafe keeps a name on its comment line.
func commentSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || r == 0x85 {
			return ' '
		}
		return r
	}, s)
}
