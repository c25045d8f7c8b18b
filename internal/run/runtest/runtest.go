// Package runtest is a run.Sources for tests of the CLI: the run is the
// production one (run.Execute over the engine), and only what it reads
// from outside is given: one AWS port for every scope (a real SDK client
// over the emulator, in the tests), a fixed commit, and a desired state
// built from documents in memory, as desired.Open would build it, without
// Git or SOPS.
package runtest

import (
	"context"
	"slices"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
)

// Commit is the commit every revision resolves to.
const Commit = "0123456789abcdef0123456789abcdef01234567"

// Sources is a run.Sources; the zero value with a Port is ready. Its
// fields are set before the run; what the run asked is read after it.
type Sources struct {
	// Port is every scope's port; the scope's Bucket is its name.
	Port engine.Port
	// Region is every port's Region (run.ScopePort.Region); "" = the
	// scope's aws-region.
	Region string
	// PortErr, when set, is Ports' error (nothing is built).
	PortErr error
	// Docs are every scope's documents: the secret's name under the
	// scope's prefix → its value (a JSON document at
	// <source-root>/<name>.sops.json).
	Docs map[string]string
	// OpenErr is Open's error; DecryptErr is the error the desired state
	// is rejected with after it was opened.
	OpenErr, DecryptErr error
	// BeforeOpen, when set, is called at the start of each Open.
	BeforeOpen func()

	mu sync.Mutex
	// PortsCalls and Opens count the calls; Scopes are the scopes the
	// last Ports call was given, Desired the options of every Open.
	PortsCalls, Opens int
	Scopes            []config.Scope
	Desired           []config.Desired
}

// Ports returns one port per scope (Port, Region, bucket = the scope's
// name), or PortErr.
func (s *Sources) Ports(_ context.Context, scopes, _ []config.Scope, _ int) ([]run.ScopePort, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.PortsCalls++
	s.Scopes = slices.Clone(scopes)
	if s.PortErr != nil {
		return nil, s.PortErr
	}
	out := make([]run.ScopePort, len(scopes))
	for i, sc := range scopes {
		region := s.Region
		if region == "" {
			region = sc.AWS.Region
		}
		out[i] = run.ScopePort{Name: sc.Name, Region: region, Bucket: sc.Name, Port: s.Port}
	}
	return out, nil
}

// Revision returns Commit.
func (s *Sources) Revision(config.Desired) (string, error) { return Commit, nil }

// Open returns the desired state of Docs under o's prefix and source
// root at o.Revision, or OpenErr.
func (s *Sources) Open(_ context.Context, o config.Desired) (run.Load, error) {
	if s.BeforeOpen != nil {
		s.BeforeOpen()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Opens++
	s.Desired = append(s.Desired, o)
	if s.OpenErr != nil {
		return nil, s.OpenErr
	}
	st := State(o, s.Docs)
	return &load{arrival: model.NewArrival(st), whole: st, err: s.DecryptErr}, nil
}

// State is the desired state desired.Open and Decrypt give for docs (name
// under the prefix → value) under o's prefix and source root at
// o.Revision: ordinals in path order, secrets in name order.
func State(o config.Desired, docs map[string]string) model.State {
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	slices.Sort(names) // path order: <root>/<name>.sops.json
	st := model.State{Commit: o.Revision, Scope: model.Scope{RepositoryID: o.RepositoryID, SourceRoot: o.SourceRoot, Prefix: o.SecretPrefix}}
	for i, n := range names {
		path := o.SourceRoot + "/" + n + ".sops.json"
		st.Secrets = append(st.Secrets, model.Secret{Name: o.SecretPrefix + "/" + n, Value: []byte(docs[n]),
			Kind: model.KindJSON, SourceDigest: model.SourceDigest(path), Path: path, Ordinal: i + 1})
	}
	slices.SortFunc(st.Secrets, func(a, b model.Secret) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return st
}

// load is one opened desired state: Decrypt publishes every value and
// finishes the arrival (or rejects it with err).
type load struct {
	arrival *model.Arrival
	whole   model.State
	err     error
}

func (l *load) Arrival() *model.Arrival { return l.arrival }

func (l *load) Decrypt(ctx context.Context, p *desired.Progress, _ *desired.Cache) error {
	err := l.err
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		for i, s := range l.whole.Secrets {
			l.arrival.Publish(i, s.Value)
		}
	}
	l.arrival.Finish(err)
	return err
}

// Check rejects the state with err (or ctx's error) and publishes no value.
func (l *load) Check(ctx context.Context, _ *desired.Progress) error {
	err := l.err
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		l.arrival.Finish(model.ErrIncomplete)
	} else {
		l.arrival.Finish(err)
	}
	return err
}
