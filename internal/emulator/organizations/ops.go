package organizations

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Output shapes (API reference, "Data Types").

type organizationOut struct {
	ID                   string       `json:"Id"`
	Arn                  string       `json:"Arn"`
	FeatureSet           string       `json:"FeatureSet"`
	MasterAccountArn     string       `json:"MasterAccountArn"`
	MasterAccountID      string       `json:"MasterAccountId"`
	MasterAccountEmail   string       `json:"MasterAccountEmail"`
	AvailablePolicyTypes []policyType `json:"AvailablePolicyTypes"`
}

type policyType struct {
	Type   string `json:"Type"`
	Status string `json:"Status"`
}

type rootOut struct {
	ID          string       `json:"Id"`
	Arn         string       `json:"Arn"`
	Name        string       `json:"Name"`
	PolicyTypes []policyType `json:"PolicyTypes"`
}

type ouOut struct {
	ID   string `json:"Id"`
	Arn  string `json:"Arn"`
	Name string `json:"Name"`
}

type accountOut struct {
	ID              string      `json:"Id"`
	Arn             string      `json:"Arn"`
	Email           string      `json:"Email"`
	Name            string      `json:"Name"`
	Status          string      `json:"Status"`
	State           string      `json:"State"`
	JoinedMethod    string      `json:"JoinedMethod"`
	JoinedTimestamp *core.Epoch `json:"JoinedTimestamp,omitempty"`
}

type parentOut struct {
	ID   string `json:"Id"`
	Type string `json:"Type"`
}

type createStatusOut struct {
	ID                 string      `json:"Id"`
	AccountName        string      `json:"AccountName,omitempty"`
	State              string      `json:"State"`
	AccountID          string      `json:"AccountId,omitempty"`
	FailureReason      string      `json:"FailureReason,omitempty"`
	RequestedTimestamp *core.Epoch `json:"RequestedTimestamp,omitempty"`
	CompletedTimestamp *core.Epoch `json:"CompletedTimestamp,omitempty"`
}

type empty struct{}

// Input shapes: fields named as the model's members (core.Decode).

type pageIn struct {
	MaxResults *int
	NextToken  *string
}

type createOrganizationIn struct{ FeatureSet *string }

type createOUIn struct {
	ParentID *string
	Name     *string
	Tags     []core.Tag
}

type parentPageIn struct {
	ParentID *string
	pageIn
}

type listParentsIn struct {
	ChildID *string
	pageIn
}

type createAccountIn struct {
	AccountName            *string
	Email                  *string
	RoleName               *string
	IamUserAccessToBilling *string
	Tags                   []core.Tag
}

type describeCreateIn struct{ CreateAccountRequestID *string }

type moveAccountIn struct {
	AccountID           *string
	SourceParentID      *string
	DestinationParentID *string
}

type tagResourceIn struct {
	ResourceID *string
	Tags       []core.Tag
}

type untagResourceIn struct {
	ResourceID *string
	TagKeys    []string
}

type listTagsIn struct {
	ResourceID *string
	NextToken  *string
}

type accountIn struct{ AccountID *string }

type ouIn struct{ OrganizationalUnitID *string }

// Errors.

func errf(code, msg string) *core.Error { return core.Errf(code, "%s", msg) }

func errInvalid() *core.Error { return errf("InvalidInputException", msgInvalid) }

func errPattern() *core.Error { return errf("InvalidInputException", msgPattern) }

// orgOf is the caller's organization: AWSOrganizationsNotInUseException
// when it is in none. mgmtOnly refuses a member account, as the reference
// says of every operation here but DescribeOrganization ("can be called
// only from the organization's management account").
func (c *Call) orgOf(mgmtOnly bool) (*org, *core.Error) {
	o := c.Store.byAccount[c.Caller]
	if o == nil {
		return nil, errf("AWSOrganizationsNotInUseException", msgNotInUse)
	}
	if mgmtOnly && o.mgmt != c.Caller {
		return nil, errf("AccessDeniedException", msgDenied)
	}
	o.settle(c.Host, c.Store)
	return o, nil
}

// page cuts items to one page. The NextToken is opaque to the client: it
// names the listing (op and key, so a token of another listing is
// InvalidInputException) and the offset.
func page[T any](items []T, in pageIn, op, key string) ([]T, *string, *core.Error) {
	limit := maxPage
	if in.MaxResults != nil {
		if *in.MaxResults < 1 || *in.MaxResults > maxPage {
			return nil, nil, errInvalid()
		}
		limit = *in.MaxResults
	}
	start := 0
	if in.NextToken != nil {
		raw, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		prefix := op + "\x00" + key + "\x00"
		rest, ok := strings.CutPrefix(string(raw), prefix)
		n, aerr := strconv.Atoi(rest)
		if err != nil || !ok || aerr != nil || n < 0 || n > len(items) {
			return nil, nil, errf("InvalidInputException", "The specified NextToken is not valid.")
		}
		start = n
	}
	end := min(start+limit, len(items))
	var next *string
	if end < len(items) {
		t := base64.RawURLEncoding.EncodeToString([]byte(op + "\x00" + key + "\x00" + strconv.Itoa(end)))
		next = &t
	}
	return items[start:end], next, nil
}

func (c *Call) orgOut(o *org) organizationOut {
	mgmt := o.accounts[o.mgmt]
	return organizationOut{ID: o.id, Arn: o.arn(), FeatureSet: o.featureSet, MasterAccountArn: o.accountARN(o.mgmt),
		MasterAccountID: o.mgmt, MasterAccountEmail: mgmt.email, AvailablePolicyTypes: []policyType{}}
}

func (o *org) accountOut(a *account) accountOut {
	return accountOut{ID: a.id, Arn: o.accountARN(a.id), Email: a.email, Name: a.name, Status: a.status,
		State: a.status, JoinedMethod: a.method, JoinedTimestamp: core.Ep(a.joined)}
}

func (o *org) ouOut(u *unit) ouOut { return ouOut{ID: u.id, Arn: o.unitARN(u), Name: u.name} }

func createOrganization(c *Call, in *createOrganizationIn) (any, *core.Error) {
	fs := "ALL"
	if in.FeatureSet != nil {
		fs = *in.FeatureSet
		if fs != "ALL" && fs != "CONSOLIDATED_BILLING" {
			return nil, core.ErrEnum("featureSet", fs, []string{"ALL", "CONSOLIDATED_BILLING"})
		}
	}
	c.Host.Lock()
	defer c.Host.Unlock()
	if c.Store.byAccount[c.Caller] != nil {
		return nil, errf("AlreadyInOrganizationException", msgAlreadyIn)
	}
	now := c.Host.Now()
	o := &org{id: "o-" + lowerID(c.Host, 10), mgmt: c.Caller, featureSet: fs, units: map[string]*unit{},
		accounts: map[string]*account{}, requests: map[string]*createRequest{}}
	o.root = &unit{id: "r-" + lowerID(c.Host, 4), name: "Root"}
	o.units[o.root.id] = o.root
	o.unitOrder = []*unit{o.root}
	// The management account joins by creating the organization; its name
	// and email are the emulator's (AWS has them from the account itself).
	m := &account{id: c.Caller, name: "management", email: "management+" + c.Caller + "@example.com",
		parent: o.root.id, method: "CREATED", status: StatusActive, joined: now}
	o.accounts[m.id] = m
	o.accountOrder = []*account{m}
	c.Store.orgs = append(c.Store.orgs, o)
	c.Store.byAccount[c.Caller] = o
	return struct {
		Organization organizationOut `json:"Organization"`
	}{c.orgOut(o)}, nil
}

func describeOrganization(c *Call, _ *empty) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(false)
	if err != nil {
		return nil, err
	}
	return struct {
		Organization organizationOut `json:"Organization"`
	}{c.orgOut(o)}, nil
}

// checkTags validates the tags of a request (API reference, Tag: Key 1 to
// 128 characters, Value 0 to 256).
func checkTags(tags []core.Tag) *core.Error {
	if len(tags) > maxTags {
		return errf("ConstraintViolationException", "You have exceeded the maximum number of tags allowed on this resource.")
	}
	for _, t := range tags {
		if t.Key == nil || t.Value == nil {
			return errInvalid()
		}
		if n := utf8.RuneCountInString(*t.Key); n < 1 || n > maxTagKey || utf8.RuneCountInString(*t.Value) > maxTagValue {
			return errInvalid()
		}
	}
	return nil
}

func tagsOf(tags []core.Tag) tagSet {
	var t tagSet
	for _, x := range tags {
		t.set(*x.Key, *x.Value)
	}
	return t
}

func createOrganizationalUnit(c *Call, in *createOUIn) (any, *core.Error) {
	if in.ParentID == nil {
		return nil, core.ErrMissing("parentId")
	}
	if in.Name == nil {
		return nil, core.ErrMissing("name")
	}
	if n := utf8.RuneCountInString(*in.Name); n < 1 || n > maxOUName {
		return nil, errInvalid()
	}
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	parent := o.units[*in.ParentID]
	if parent == nil {
		return nil, errf("ParentNotFoundException", msgParentMissing)
	}
	for _, u := range o.unitOrder {
		if u.parent == parent.id && u.name == *in.Name {
			return nil, errf("DuplicateOrganizationalUnitException", msgDuplicateOU)
		}
	}
	if o.depth(parent)+1 > maxOUDepth {
		return nil, errf("ConstraintViolationException", "You attempted to create an OU tree that is too many levels deep.")
	}
	u := &unit{id: "ou-" + strings.TrimPrefix(o.root.id, "r-") + "-" + lowerID(c.Host, 8), name: *in.Name,
		parent: parent.id, tags: tagsOf(in.Tags)}
	o.units[u.id] = u
	o.unitOrder = append(o.unitOrder, u)
	return struct {
		OrganizationalUnit ouOut `json:"OrganizationalUnit"`
	}{o.ouOut(u)}, nil
}

func describeOrganizationalUnit(c *Call, in *ouIn) (any, *core.Error) {
	if in.OrganizationalUnitID == nil {
		return nil, core.ErrMissing("organizationalUnitId")
	}
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	u := o.units[*in.OrganizationalUnitID]
	if u == nil || u.parent == "" {
		return nil, errf("OrganizationalUnitNotFoundException", "We can't find an OU with the OrganizationalUnitId that you specified.")
	}
	return struct {
		OrganizationalUnit ouOut `json:"OrganizationalUnit"`
	}{o.ouOut(u)}, nil
}

func listRoots(c *Call, in *pageIn) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	items, next, err := page([]*unit{o.root}, *in, "ListRoots", "")
	if err != nil {
		return nil, err
	}
	out := struct {
		Roots     []rootOut `json:"Roots"`
		NextToken *string   `json:"NextToken,omitempty"`
	}{Roots: []rootOut{}, NextToken: next}
	for _, u := range items {
		out.Roots = append(out.Roots, rootOut{ID: u.id, Arn: o.unitARN(u), Name: u.name, PolicyTypes: []policyType{}})
	}
	return out, nil
}

// parentOf resolves a ParentId: ParentNotFoundException when it is no root
// or OU of o.
func (o *org) parentOf(id *string) (*unit, *core.Error) {
	if id == nil {
		return nil, core.ErrMissing("parentId")
	}
	if !rootIDRE.MatchString(*id) && !ouIDRE.MatchString(*id) {
		return nil, errPattern()
	}
	u := o.units[*id]
	if u == nil {
		return nil, errf("ParentNotFoundException", msgParentMissing)
	}
	return u, nil
}

func listOrganizationalUnitsForParent(c *Call, in *parentPageIn) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	parent, err := o.parentOf(in.ParentID)
	if err != nil {
		return nil, err
	}
	var children []*unit
	for _, u := range o.unitOrder {
		if u.parent == parent.id {
			children = append(children, u)
		}
	}
	items, next, err := page(children, in.pageIn, "ListOrganizationalUnitsForParent", parent.id)
	if err != nil {
		return nil, err
	}
	out := struct {
		OrganizationalUnits []ouOut `json:"OrganizationalUnits"`
		NextToken           *string `json:"NextToken,omitempty"`
	}{OrganizationalUnits: []ouOut{}, NextToken: next}
	for _, u := range items {
		out.OrganizationalUnits = append(out.OrganizationalUnits, o.ouOut(u))
	}
	return out, nil
}

type accountsOut struct {
	Accounts  []accountOut `json:"Accounts"`
	NextToken *string      `json:"NextToken,omitempty"`
}

func (o *org) accountsPage(list []*account, in pageIn, op, key string) (any, *core.Error) {
	items, next, err := page(list, in, op, key)
	if err != nil {
		return nil, err
	}
	out := accountsOut{Accounts: []accountOut{}, NextToken: next}
	for _, a := range items {
		out.Accounts = append(out.Accounts, o.accountOut(a))
	}
	return out, nil
}

func listAccounts(c *Call, in *pageIn) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	return o.accountsPage(o.accountOrder, *in, "ListAccounts", "")
}

func listAccountsForParent(c *Call, in *parentPageIn) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	parent, err := o.parentOf(in.ParentID)
	if err != nil {
		return nil, err
	}
	var in2 []*account
	for _, a := range o.accountOrder {
		if a.parent == parent.id {
			in2 = append(in2, a)
		}
	}
	return o.accountsPage(in2, in.pageIn, "ListAccountsForParent", parent.id)
}

func listParents(c *Call, in *listParentsIn) (any, *core.Error) {
	if in.ChildID == nil {
		return nil, core.ErrMissing("childId")
	}
	if !accountIDRE.MatchString(*in.ChildID) && !ouIDRE.MatchString(*in.ChildID) {
		return nil, errPattern()
	}
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	var parent string
	if a := o.accounts[*in.ChildID]; a != nil {
		parent = a.parent
	} else if u := o.units[*in.ChildID]; u != nil && u.parent != "" {
		parent = u.parent
	} else {
		return nil, errf("ChildNotFoundException", msgChildMissing)
	}
	typ := "ORGANIZATIONAL_UNIT"
	if parent == o.root.id {
		typ = "ROOT"
	}
	items, next, err := page([]parentOut{{ID: parent, Type: typ}}, in.pageIn, "ListParents", *in.ChildID)
	if err != nil {
		return nil, err
	}
	return struct {
		Parents   []parentOut `json:"Parents"`
		NextToken *string     `json:"NextToken,omitempty"`
	}{items, next}, nil
}

var roleNameRE = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)

func createAccount(c *Call, in *createAccountIn) (any, *core.Error) {
	if in.AccountName == nil {
		return nil, core.ErrMissing("accountName")
	}
	if in.Email == nil {
		return nil, core.ErrMissing("email")
	}
	if n := utf8.RuneCountInString(*in.AccountName); n < 1 || n > maxAccountName {
		return nil, errInvalid()
	}
	if n := len(*in.Email); n < 6 || n > 64 || !emailRE.MatchString(*in.Email) {
		return nil, errPattern()
	}
	role := DefaultRoleName
	if in.RoleName != nil {
		if !roleNameRE.MatchString(*in.RoleName) {
			return nil, errPattern()
		}
		role = *in.RoleName
	}
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	r := &createRequest{id: "car-" + lowerID(c.Host, 8), name: *in.AccountName, email: *in.Email, role: role,
		requested: c.Host.Now(), state: createInProgress, tags: tagsOf(in.Tags)}
	o.requests[r.id] = r
	o.requestOrder = append(o.requestOrder, r)
	// The answer is the request as it stands when it is made: IN_PROGRESS
	// (API reference, CreateAccount: "an asynchronous request"); it
	// completes on the emulator clock, seen by the next call.
	return struct {
		CreateAccountStatus createStatusOut `json:"CreateAccountStatus"`
	}{createStatusOut{ID: r.id, AccountName: r.name, State: r.state, RequestedTimestamp: core.Ep(r.requested)}}, nil
}

func describeCreateAccountStatus(c *Call, in *describeCreateIn) (any, *core.Error) {
	if in.CreateAccountRequestID == nil {
		return nil, core.ErrMissing("createAccountRequestId")
	}
	if !requestIDRE.MatchString(*in.CreateAccountRequestID) {
		return nil, errPattern()
	}
	c.Host.Lock()
	defer c.Host.Unlock()
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	r := o.requests[*in.CreateAccountRequestID]
	if r == nil {
		return nil, errf("CreateAccountStatusNotFoundException", msgRequestMissing)
	}
	out := createStatusOut{ID: r.id, AccountName: r.name, State: r.state, AccountID: r.accountID,
		FailureReason: r.failure, RequestedTimestamp: core.Ep(r.requested)}
	if r.state != createInProgress {
		out.CompletedTimestamp = core.Ep(r.completed)
	}
	return struct {
		CreateAccountStatus createStatusOut `json:"CreateAccountStatus"`
	}{out}, nil
}

func describeAccount(c *Call, in *accountIn) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	o, a, err := c.account(in.AccountID)
	if err != nil {
		return nil, err
	}
	return struct {
		Account accountOut `json:"Account"`
	}{o.accountOut(a)}, nil
}

// account resolves an AccountId of the caller's organization. The host's
// lock is held.
func (c *Call) account(id *string) (*org, *account, *core.Error) {
	if id == nil {
		return nil, nil, core.ErrMissing("accountId")
	}
	if !accountIDRE.MatchString(*id) {
		return nil, nil, errPattern()
	}
	o, err := c.orgOf(true)
	if err != nil {
		return nil, nil, err
	}
	a := o.accounts[*id]
	if a == nil {
		return nil, nil, errf("AccountNotFoundException", msgAccountMissing)
	}
	return o, a, nil
}

func moveAccount(c *Call, in *moveAccountIn) (any, *core.Error) {
	if in.SourceParentID == nil {
		return nil, core.ErrMissing("sourceParentId")
	}
	if in.DestinationParentID == nil {
		return nil, core.ErrMissing("destinationParentId")
	}
	c.Host.Lock()
	defer c.Host.Unlock()
	o, a, err := c.account(in.AccountID)
	if err != nil {
		return nil, err
	}
	if o.units[*in.SourceParentID] == nil {
		return nil, errf("SourceParentNotFoundException", msgSourceMissing)
	}
	dest := o.units[*in.DestinationParentID]
	if dest == nil {
		return nil, errf("DestinationParentNotFoundException", msgDestMissing)
	}
	if a.parent != *in.SourceParentID {
		return nil, errf("AccountNotFoundException", msgAccountMissing)
	}
	if a.parent == dest.id {
		return nil, errf("DuplicateAccountException", msgDuplicateAcct)
	}
	a.parent = dest.id
	return empty{}, nil
}

func closeAccount(c *Call, in *accountIn) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	o, a, err := c.account(in.AccountID)
	if err != nil {
		return nil, err
	}
	if a.id == o.mgmt {
		return nil, errf("ConstraintViolationException", "You can't close the management account with this API.")
	}
	if a.status != StatusActive {
		return nil, errf("AccountAlreadyClosedException", msgAlreadyClosed)
	}
	// PENDING_CLOSURE while the closure is in progress, then SUSPENDED
	// (API reference, CloseAccount); with no closure lag the next call
	// already sees SUSPENDED, as moto's test of CloseAccount expects.
	a.status, a.closes = StatusPendingClosure, c.Host.Now().Add(c.Host.ClosureLag())
	return empty{}, nil
}

// taggable resolves a ResourceId of TagResource, UntagResource and
// ListTagsForResource: an account, a root or an OU (policies are not
// modelled: TargetNotFoundException).
func (c *Call) taggable(id *string) (*tagSet, *core.Error) {
	if id == nil {
		return nil, core.ErrMissing("resourceId")
	}
	if !accountIDRE.MatchString(*id) && !rootIDRE.MatchString(*id) && !ouIDRE.MatchString(*id) && !strings.HasPrefix(*id, "p-") {
		return nil, errPattern()
	}
	o, err := c.orgOf(true)
	if err != nil {
		return nil, err
	}
	if a := o.accounts[*id]; a != nil {
		return &a.tags, nil
	}
	if u := o.units[*id]; u != nil {
		return &u.tags, nil
	}
	return nil, errf("TargetNotFoundException", msgTargetMissing)
}

func tagResource(c *Call, in *tagResourceIn) (any, *core.Error) {
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	c.Host.Lock()
	defer c.Host.Unlock()
	t, err := c.taggable(in.ResourceID)
	if err != nil {
		return nil, err
	}
	keys := slices.Clone(t.keys)
	for _, x := range in.Tags {
		if !slices.Contains(keys, *x.Key) {
			keys = append(keys, *x.Key)
		}
	}
	if len(keys) > maxTags {
		return nil, errf("ConstraintViolationException", "You have exceeded the maximum number of tags allowed on this resource.")
	}
	for _, x := range in.Tags {
		t.set(*x.Key, *x.Value)
	}
	return empty{}, nil
}

func untagResource(c *Call, in *untagResourceIn) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	t, err := c.taggable(in.ResourceID)
	if err != nil {
		return nil, err
	}
	for _, k := range in.TagKeys {
		t.remove(k)
	}
	return empty{}, nil
}

func listTagsForResource(c *Call, in *listTagsIn) (any, *core.Error) {
	c.Host.Lock()
	defer c.Host.Unlock()
	t, err := c.taggable(in.ResourceID)
	if err != nil {
		return nil, err
	}
	items, next, err := page(t.out(), pageIn{NextToken: in.NextToken}, "ListTagsForResource", *in.ResourceID)
	if err != nil {
		return nil, err
	}
	return struct {
		Tags      []core.TagOut `json:"Tags"`
		NextToken *string       `json:"NextToken,omitempty"`
	}{items, next}, nil
}

// operations are the served operations by their unqualified name.
var operations = map[string]core.Handler[*Call]{
	"CreateOrganization":               core.Op(createOrganization),
	"DescribeOrganization":             core.Op(describeOrganization),
	"CreateOrganizationalUnit":         core.Op(createOrganizationalUnit),
	"DescribeOrganizationalUnit":       core.Op(describeOrganizationalUnit),
	"ListRoots":                        core.Op(listRoots),
	"ListOrganizationalUnitsForParent": core.Op(listOrganizationalUnitsForParent),
	"ListAccounts":                     core.Op(listAccounts),
	"ListAccountsForParent":            core.Op(listAccountsForParent),
	"ListParents":                      core.Op(listParents),
	"CreateAccount":                    core.Op(createAccount),
	"DescribeCreateAccountStatus":      core.Op(describeCreateAccountStatus),
	"DescribeAccount":                  core.Op(describeAccount),
	"MoveAccount":                      core.Op(moveAccount),
	"CloseAccount":                     core.Op(closeAccount),
	"TagResource":                      core.Op(tagResource),
	"UntagResource":                    core.Op(untagResource),
	"ListTagsForResource":              core.Op(listTagsForResource),
}

var mutating = map[string]bool{
	"CreateOrganization": true, "CreateOrganizationalUnit": true, "CreateAccount": true,
	"MoveAccount": true, "CloseAccount": true, "TagResource": true, "UntagResource": true,
}

// Handler is the handler of the qualified operation op
// ("organizations:ListAccounts"), nil when it is not served.
func Handler(op string) core.Handler[*Call] {
	bare, ok := strings.CutPrefix(op, OpPrefix)
	if !ok {
		return nil
	}
	return operations[bare]
}

// Serves reports whether the qualified operation op is served.
func Serves(op string) bool { return Handler(op) != nil }

// Mutating reports whether the qualified operation op changes state.
func Mutating(op string) bool { return mutating[strings.TrimPrefix(op, OpPrefix)] }

// Operations returns the unqualified names of the served operations,
// sorted.
func Operations() []string {
	names := make([]string, 0, len(operations))
	for k := range operations {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Quotas are the request quotas by qualified operation. AWS publishes no
// rate for most Organizations operations ("throttling … to protect the
// service"; the quotas page names CreateAccount's five concurrent
// requests): one family for the reads at 10 per second and one for the
// writes at 5 per second is the emulator's choice [unverified]; with
// quotas on, a throttled call is TooManyRequestsException.
var Quotas = func() map[string]core.Quota {
	q := map[string]core.Quota{}
	for op := range operations {
		if mutating[op] {
			q[OpPrefix+op] = core.Quota{Family: "organizations:writes", Rate: 5}
		} else {
			q[OpPrefix+op] = core.Quota{Family: "organizations:reads", Rate: 10}
		}
	}
	return q
}()
