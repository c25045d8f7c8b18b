package organizations

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Target is the X-Amz-Target prefix of the operations (the service
// model's "AWSOrganizationsV20161128" awsJson1_1 target).
const Target = "AWSOrganizationsV20161128."

// IAMPrefix is the prefix of the operations' IAM actions.
const IAMPrefix = "organizations:"

// OpPrefix qualifies the operation names in the emulator's stats, faults
// and quotas ("organizations:TagResource"): Organizations shares
// TagResource and UntagResource with Secrets Manager and
// ListTagsForResource with Parameter Store, so its names are qualified by
// its IAM prefix.
const OpPrefix = IAMPrefix

// Account statuses and states (the model's AccountStatus and AccountState;
// API reference, CloseAccount: PENDING_CLOSURE while the closure is in
// progress, SUSPENDED once it completed).
const (
	StatusActive         = "ACTIVE"
	StatusSuspended      = "SUSPENDED"
	StatusPendingClosure = "PENDING_CLOSURE"
)

// Create-account request states (the model's CreateAccountState).
const (
	createInProgress = "IN_PROGRESS"
	createSucceeded  = "SUCCEEDED"
	createFailed     = "FAILED"
)

// DefaultRoleName is the role CreateAccount makes in the new account when
// the request names none (API reference, CreateAccount RoleName).
const DefaultRoleName = "OrganizationAccountAccessRole"

// Limits (API reference, each operation's request parameters; the depth of
// OUs: the Organizations quotas page, "OU maximum nesting in a root: five
// levels of OUs deep under a root").
const (
	maxPage        = 20 // MaxResults of every List operation: 1 to 20
	maxOUDepth     = 5
	maxTags        = 50 // tags per resource [unverified: the tagging guide's 50]
	maxTagKey      = 128
	maxTagValue    = 256
	maxOUName      = 128
	maxAccountName = 50
)

// Messages of the error answers. The reference gives the codes; these
// words are those of moto's tests where they name one, else the
// reference's description of the error [unverified].
const (
	msgNotInUse       = "Your account is not a member of an organization."
	msgAlreadyIn      = "The provided account is already a member of an organization."
	msgAccountMissing = "You specified an account that doesn't exist."
	msgAlreadyClosed  = "The provided account is already closed."
	msgTargetMissing  = "You specified a target that doesn't exist."
	msgParentMissing  = "You specified a root or OU that doesn't exist."
	msgChildMissing   = "We can't find an organizational unit (OU) or AWS account with the ChildId that you specified."
	msgSourceMissing  = "We can't find a source root or OU with the ParentId that you specified."
	msgDestMissing    = "We can't find the destination container (a root or OU) with the ParentId that you specified."
	msgDuplicateOU    = "An OU with the same name already exists."
	msgDuplicateAcct  = "That account is already present in the specified destination."
	msgRequestMissing = "We can't find a create account request with the CreateAccountRequestId that you specified."
	msgPattern        = "You provided a value that does not match the required pattern."
	msgInvalid        = "You specified an invalid value."
	msgDenied         = "You don't have permissions to access this resource."
	// MsgTooManyRequests is TooManyRequestsException's message (API
	// reference, "Common Errors" of Organizations).
	MsgTooManyRequests = "You have sent too many requests in too short a period of time. The quota helps protect against denial-of-service attacks. Try again later."
)

// Identifier patterns (API reference: each Id's "Pattern").
var (
	accountIDRE = regexp.MustCompile(`^\d{12}$`)
	rootIDRE    = regexp.MustCompile(`^r-[0-9a-z]{4,32}$`)
	ouIDRE      = regexp.MustCompile(`^ou-[0-9a-z]{4,32}-[a-z0-9]{8,32}$`)
	requestIDRE = regexp.MustCompile(`^car-[a-z0-9]{8,32}$`)
	emailRE     = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)
)

// Host is the server the service runs in: core.Host, the seeded id
// generator and the completion lags of the fault configuration. Every
// method is called with the lock held.
type Host interface {
	core.Host
	// RandUpper is n characters of [A-Z0-9] from the seeded generator.
	RandUpper(n int) string
	// CreateLag is how long a CreateAccount request stays IN_PROGRESS.
	CreateLag() time.Duration
	// ClosureLag is how long a closed account stays PENDING_CLOSURE.
	ClosureLag() time.Duration
}

// Call is one request as the service sees it: the server, the caller's
// account and the emulator's organizations.
type Call struct {
	Host   Host
	Caller string
	Store  *Store
}

// Store is every organization of the emulator. Callers hold the host's
// lock.
type Store struct {
	orgs      []*org
	byAccount map[string]*org // management and member accounts
}

// NewStore returns a Store without any organization.
func NewStore() *Store { return &Store{byAccount: map[string]*org{}} }

type org struct {
	id, mgmt, featureSet string
	root                 *unit
	units                map[string]*unit // OUs and the root, by id
	unitOrder            []*unit          // creation order, root first
	accounts             map[string]*account
	accountOrder         []*account // joined order, management first
	requests             map[string]*createRequest
	requestOrder         []*createRequest
}

// unit is the root or an organizational unit.
type unit struct {
	id, name, parent string // parent "" for the root
	tags             tagSet
}

type account struct {
	id, name, email, parent, method, status string
	joined                                  time.Time
	closes                                  time.Time // when PENDING_CLOSURE ends
	role                                    string    // the role CreateAccount made ("" for the management account)
	tags                                    tagSet
}

type createRequest struct {
	id, name, email, role string
	requested, completed  time.Time
	state, failure        string
	accountID             string
	tags                  tagSet
}

// tagSet keeps tags in the order their keys were first set.
type tagSet struct {
	keys []string
	vals map[string]string
}

func (t *tagSet) set(k, v string) {
	if t.vals == nil {
		t.vals = map[string]string{}
	}
	if _, ok := t.vals[k]; !ok {
		t.keys = append(t.keys, k)
	}
	t.vals[k] = v
}

func (t *tagSet) remove(k string) {
	if _, ok := t.vals[k]; !ok {
		return
	}
	delete(t.vals, k)
	t.keys = slices.DeleteFunc(t.keys, func(x string) bool { return x == k })
}

func (t tagSet) out() []core.TagOut {
	out := make([]core.TagOut, 0, len(t.keys))
	for _, k := range t.keys {
		out = append(out, core.TagOut{Key: k, Value: t.vals[k]})
	}
	return out
}

// Map returns the tags as a map (nil when none).
func (t tagSet) Map() map[string]string {
	if len(t.keys) == 0 {
		return nil
	}
	m := make(map[string]string, len(t.keys))
	for _, k := range t.keys {
		m[k] = t.vals[k]
	}
	return m
}

// settle completes what the emulator clock says is done: create requests
// past the creation lag, closures past the closure lag.
func (o *org) settle(h Host, s *Store) {
	now := h.Now()
	for _, r := range o.requestOrder {
		if r.state == createInProgress && !now.Before(r.requested.Add(h.CreateLag())) {
			o.complete(h, s, r, r.requested.Add(h.CreateLag()))
		}
	}
	for _, a := range o.accountOrder {
		if a.status == StatusPendingClosure && !now.Before(a.closes) {
			a.status = StatusSuspended
		}
	}
}

// complete makes the account of request r at time at, or fails it when its
// email is taken (CreateAccountStatus FailureReason EMAIL_ALREADY_EXISTS).
func (o *org) complete(h Host, s *Store, r *createRequest, at time.Time) {
	r.completed = at
	for _, a := range o.accountOrder {
		if strings.EqualFold(a.email, r.email) {
			r.state, r.failure = createFailed, "EMAIL_ALREADY_EXISTS"
			return
		}
	}
	id := newAccountID(h, s)
	a := &account{id: id, name: r.name, email: r.email, parent: o.root.id, method: "CREATED",
		status: StatusActive, joined: at, role: r.role, tags: r.tags}
	o.accounts[id] = a
	o.accountOrder = append(o.accountOrder, a)
	s.byAccount[id] = o
	r.state, r.accountID = createSucceeded, id
}

// newAccountID draws 12 digits no organization uses yet.
func newAccountID(h Host, s *Store) string {
	for {
		b := []byte(h.RandUpper(12))
		for i, c := range b {
			b[i] = '0' + c%10
		}
		if b[0] == '0' {
			b[0] = '1'
		}
		if id := string(b); s.byAccount[id] == nil {
			return id
		}
	}
}

// lowerID is n characters of [a-z0-9] from the seeded generator.
func lowerID(h Host, n int) string { return strings.ToLower(h.RandUpper(n)) }

func (o *org) arn() string { return "arn:aws:organizations::" + o.mgmt + ":organization/" + o.id }

func (o *org) accountARN(id string) string {
	return "arn:aws:organizations::" + o.mgmt + ":account/" + o.id + "/" + id
}

func (o *org) unitARN(u *unit) string {
	kind := "ou"
	if u.parent == "" {
		kind = "root"
	}
	return "arn:aws:organizations::" + o.mgmt + ":" + kind + "/" + o.id + "/" + u.id
}

// depth is the number of OUs from the root down to u (the root is 0).
func (o *org) depth(u *unit) int {
	n := 0
	for u.parent != "" {
		n++
		u = o.units[u.parent]
	}
	return n
}

// Path is u's place as OU names from the root ("" for the root,
// "platform/prod" for an OU prod under an OU platform).
func (o *org) path(id string) string {
	var names []string
	for u := o.units[id]; u != nil && u.parent != ""; u = o.units[u.parent] {
		names = append(names, u.name)
	}
	slices.Reverse(names)
	return strings.Join(names, "/")
}
