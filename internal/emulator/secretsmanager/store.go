package secretsmanager

import (
	"container/heap"
	"slices"
	"sort"
	"strings"
	"time"
)

// version is one secret version. Immutable once created; its labels live in
// secret.stages so that moving a label never rewrites a version.
type version struct {
	id      string
	str     *string
	bin     []byte
	created time.Time
	keys    []string // KMS key ids that can decrypt it, oldest first (kms.go)
}

type tag struct{ key, value string }

// secret is one committed snapshot of a secret's metadata and versions.
// Immutable once committed: mutations clone it (clone copies the small
// slices and maps; versions are shared by pointer).
type secret struct {
	// Fields a ListSecrets scan reads for every secret come first, so they
	// share a cache line.
	deletedDate     time.Time // zero when active
	tags            []tag
	name            string
	arn             string
	description     string
	kmsKeyID        string
	typ             string
	created         time.Time
	lastChanged     time.Time
	deletionDate    time.Time // purge time when scheduled for deletion
	rotationEnabled bool
	rotationSet     bool      // rotation was ever configured (RotationEnabled is shown)
	rotationSince   time.Time // when rotation was last turned on (the schedule's start before any rotation)
	lastRotated     time.Time // when the last rotation finished (zero: never)
	owningService   string
	primaryRegion   string              // this Region for a primary with replicas; the primary's for a replica
	replicas        []replicaState      // a primary's replicas (replication.go)
	replica         bool                // a read-only replica of a primary in another Region
	policy          string              // resource policy (JSON text); "" when none
	versions        []*version          // creation order, deprecated included
	stages          map[string][]string // version id → labels (labelled only)
}

func (s *secret) clone() *secret {
	c := *s
	c.tags = slices.Clone(s.tags)
	c.replicas = slices.Clone(s.replicas)
	c.versions = slices.Clone(s.versions)
	c.stages = make(map[string][]string, len(s.stages))
	for k, v := range s.stages {
		c.stages[k] = slices.Clone(v)
	}
	return &c
}

func (s *secret) pending() bool { return !s.deletedDate.IsZero() }

func (s *secret) version(id string) *version {
	for _, v := range s.versions {
		if v.id == id {
			return v
		}
	}
	return nil
}

// holder returns the id of a version holding label, or "".
func (s *secret) holder(label string) string {
	for _, v := range s.versions { // deterministic: creation order
		if slices.Contains(s.stages[v.id], label) {
			return v.id
		}
	}
	return ""
}

func (s *secret) removeLabel(label string) {
	for id, ls := range s.stages {
		if i := slices.Index(ls, label); i >= 0 {
			ls = slices.Delete(ls, i, i+1)
			if len(ls) == 0 {
				delete(s.stages, id)
			} else {
				s.stages[id] = ls
			}
		}
	}
}

func (s *secret) addLabel(id, label string) {
	if !slices.Contains(s.stages[id], label) {
		s.stages[id] = append(s.stages[id], label)
	}
}

// moveCurrent moves AWSCURRENT to id and AWSPREVIOUS to the version that
// held AWSCURRENT before (reference §3).
func (s *secret) moveCurrent(id string) {
	old := s.holder("AWSCURRENT")
	if old == id {
		return
	}
	s.removeLabel("AWSCURRENT")
	s.addLabel(id, "AWSCURRENT")
	if old != "" {
		s.removeLabel("AWSPREVIOUS")
		s.addLabel(old, "AWSPREVIOUS")
	}
}

// stageMap returns the labelled versions' labels, for VersionIdsToStages.
// The map is shared, not copied: a committed snapshot is never mutated.
func (s *secret) stageMap() map[string][]string {
	if len(s.stages) == 0 {
		return nil
	}
	return s.stages
}

// histEntry is a snapshot and the emulator time it was committed at; a nil
// snapshot means the secret was purged at that time.
type histEntry struct {
	at time.Time
	s  *secret
}

// record is one incarnation of a secret (one ARN) from creation to purge.
type record struct {
	seq          uint64
	history      []histEntry // ascending by at; never empty
	truncated    bool        // history[0] is not the creation entry
	lastAccessed time.Time   // day resolution; not historised
	live         *secret     // == history[len-1].s, kept to save a load per scan
}

func (r *record) cur() *secret { return r.live }

// at returns the snapshot visible at time t (nil when the secret did not
// exist or was purged at t).
func (r *record) at(t time.Time) *secret {
	i := sort.Search(len(r.history), func(i int) bool { return r.history[i].at.After(t) })
	if i == 0 {
		if r.truncated {
			return r.history[0].s // best available: older states were not kept
		}
		return nil
	}
	return r.history[i-1].s
}

// Store is one (account, Region)'s secrets; callers hold the host's lock.
type Store struct {
	order  []*record          // creation order (seq ascending), dead records kept while lag needs them
	byName map[string]*record // live records
	byARN  map[string]*record // live records
	purges purgeHeap
	seq    uint64
	dead   int
}

func NewStore() *Store {
	return &Store{byName: map[string]*record{}, byARN: map[string]*record{}}
}

// commit records s as r's new state at now, keeping only the history that
// a list lag of lag still needs.
func (st *Store) commit(r *record, s *secret, now time.Time, lag time.Duration) {
	prev := r.history[len(r.history)-1]
	if now.Before(prev.at) {
		now = prev.at // keep history ascending even if the clock was replaced
	}
	r.history = append(r.history, histEntry{at: now, s: s})
	r.live = s
	st.prune(r, now, lag)
	if s == nil && prev.s != nil {
		delete(st.byName, prev.s.name)
		delete(st.byARN, prev.s.arn)
		st.dead++
	}
}

func (st *Store) prune(r *record, now time.Time, lag time.Duration) {
	cutoff := now.Add(-lag)
	// Keep the last entry at or before cutoff and everything after it.
	i := sort.Search(len(r.history), func(i int) bool { return r.history[i].at.After(cutoff) })
	if i >= 2 {
		r.history = slices.Delete(r.history, 0, i-1)
		r.truncated = true
	}
}

func (st *Store) create(s *secret, now time.Time) *record {
	st.seq++
	r := &record{seq: st.seq, history: []histEntry{{at: now, s: s}}, live: s}
	st.order = append(st.order, r)
	st.byName[s.name] = r
	st.byARN[s.arn] = r
	return r
}

// compact drops purged records that no lagged list can still see.
func (st *Store) compact(now time.Time, lag time.Duration) {
	if st.dead < 64 || st.dead*2 < len(st.order) {
		return
	}
	cutoff := now.Add(-lag)
	kept := st.order[:0]
	dead := 0
	for _, r := range st.order {
		last := r.history[len(r.history)-1]
		if last.s == nil {
			if !last.at.After(cutoff) {
				continue
			}
			dead++
		}
		kept = append(kept, r)
	}
	clear(st.order[len(kept):])
	st.order = kept
	st.dead = dead
}

const arnSecretMarker = ":secret:"

// lookup resolves a SecretId: a name, a full ARN, or a partial ARN (an ARN
// without the random suffix) (reference §5).
func (st *Store) lookup(id string) *record {
	if strings.HasPrefix(id, "arn:") {
		if r := st.byARN[id]; r != nil {
			return r
		}
		i := strings.Index(id, arnSecretMarker)
		if i < 0 {
			return nil
		}
		r := st.byName[id[i+len(arnSecretMarker):]]
		if r == nil {
			return nil
		}
		// A partial ARN must match the secret's ARN up to the suffix.
		if strings.HasPrefix(r.cur().arn, id+"-") {
			return r
		}
		return nil
	}
	return st.byName[id]
}

// sweep purges secrets whose recovery window ended at or before now.
func (st *Store) sweep(now time.Time, lag time.Duration) {
	for len(st.purges) > 0 && !st.purges[0].at.After(now) {
		p := heap.Pop(&st.purges).(purge)
		r := p.r
		s := r.cur()
		if s == nil || !s.pending() || !s.deletionDate.Equal(p.at) {
			continue // restored, re-deleted or already purged
		}
		st.commit(r, nil, p.at, lag)
	}
}

func (st *Store) schedulePurge(r *record, at time.Time) {
	heap.Push(&st.purges, purge{at: at, r: r})
}

type purge struct {
	at time.Time
	r  *record
}

type purgeHeap []purge

func (h purgeHeap) Len() int           { return len(h) }
func (h purgeHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h purgeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *purgeHeap) Push(x any)        { *h = append(*h, x.(purge)) }
func (h *purgeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
