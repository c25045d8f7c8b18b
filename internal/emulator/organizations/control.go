package organizations

import (
	"fmt"
	"slices"
)

// Dump is one organization as GET /_emulator/organizations serves it.
type Dump struct {
	ID                string        `json:"id"`
	ManagementAccount string        `json:"management_account"`
	Root              UnitDump      `json:"root"`
	Units             []UnitDump    `json:"organizational_units"`
	Accounts          []AccountDump `json:"accounts"`
}

// UnitDump is the root or an OU: Path is its OU names from the root,
// joined by "/" ("" for the root).
type UnitDump struct {
	ID     string            `json:"id"`
	Name   string            `json:"name"`
	Parent string            `json:"parent,omitempty"`
	Path   string            `json:"path"`
	Tags   map[string]string `json:"tags,omitempty"`
}

// AccountDump is one account: its status (ACTIVE, PENDING_CLOSURE,
// SUSPENDED), the path of its parent and the role CreateAccount made in it.
type AccountDump struct {
	ID     string            `json:"id"`
	Name   string            `json:"name"`
	Email  string            `json:"email"`
	Parent string            `json:"parent"`
	Path   string            `json:"path"`
	Status string            `json:"status"`
	Role   string            `json:"role,omitempty"`
	Tags   map[string]string `json:"tags,omitempty"`
}

// Dump returns every organization, settled at the host's clock, in
// creation order. The host's lock is held.
func (s *Store) Dump(h Host) []Dump {
	out := []Dump{}
	for _, o := range s.orgs {
		o.settle(h, s)
		d := Dump{ID: o.id, ManagementAccount: o.mgmt, Root: UnitDump{ID: o.root.id, Name: o.root.name, Tags: o.root.tags.Map()},
			Units: []UnitDump{}, Accounts: []AccountDump{}}
		for _, u := range o.unitOrder[1:] {
			d.Units = append(d.Units, UnitDump{ID: u.id, Name: u.name, Parent: u.parent, Path: o.path(u.id), Tags: u.tags.Map()})
		}
		for _, a := range o.accountOrder {
			d.Accounts = append(d.Accounts, AccountDump{ID: a.id, Name: a.name, Email: a.email, Parent: a.parent,
				Path: o.path(a.parent), Status: a.status, Role: a.role, Tags: a.tags.Map()})
		}
		out = append(out, d)
	}
	return out
}

// SetStatus sets the status of account id (ACTIVE, PENDING_CLOSURE or
// SUSPENDED) at once, as a rehearsal of an account suspended by AWS or
// reinstated by AWS Support. A PENDING_CLOSURE set here stays until
// changed. The host's lock is held.
func (s *Store) SetStatus(h Host, id, status string) error {
	if !slices.Contains([]string{StatusActive, StatusPendingClosure, StatusSuspended}, status) {
		return fmt.Errorf("status %q is not ACTIVE, PENDING_CLOSURE or SUSPENDED", status)
	}
	o := s.byAccount[id]
	if o == nil {
		return fmt.Errorf("account %q is in no organization", id)
	}
	o.settle(h, s)
	a := o.accounts[id]
	if a.id == o.mgmt && status != StatusActive {
		return fmt.Errorf("account %q is the management account of %s, which AWS never suspends this way", id, o.id)
	}
	a.status = status
	a.closes = h.Now().AddDate(100, 0, 0)
	return nil
}

// Role is a role CreateAccount made: its ARN and the management account it
// trusts (API reference, CreateAccount RoleName: "grants administrator
// permissions to the new member account … trusted by the management
// account").
type Role struct {
	ARN, Trusted string
}

// Roles returns the roles CreateAccount made in the accounts of every
// organization. The host's lock is held.
func (s *Store) Roles() []Role {
	var out []Role
	for _, o := range s.orgs {
		for _, a := range o.accountOrder {
			if a.role != "" {
				out = append(out, Role{ARN: "arn:aws:iam::" + a.id + ":role/" + a.role, Trusted: o.mgmt})
			}
		}
	}
	return out
}

// Status is the status of account id in its organization ("" when it is
// in none), settled at the host's clock. The host's lock is held.
func (s *Store) Status(h Host, id string) string {
	o := s.byAccount[id]
	if o == nil {
		return ""
	}
	o.settle(h, s)
	return o.accounts[id].status
}
