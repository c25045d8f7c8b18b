package plan

import (
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// MetadataChange is what differs between the configured metadata
// (model.Metadata) and one owned secret's observation. The zero
// value means nothing to change. It never holds a secret value.
type MetadataChange struct {
	// KMSKeyID and Description: UpdateSecret must set them (the configured
	// KMS key differs, model.SameKMSKey; the description differs).
	KMSKeyID    bool
	Description bool
	// Tags are the managed tag keys that are missing or hold another value,
	// sorted; TagResource sets them to the configured values. Tags the
	// configuration does not name are never listed (never removed).
	Tags []string
}

// Any reports whether anything must change.
func (c MetadataChange) Any() bool { return c.KMSKeyID || c.Description || len(c.Tags) > 0 }

// NeedsUpdateSecret reports whether UpdateSecret must be called (the KMS key
// or the description). Tags go through TagResource.
func (c MetadataChange) NeedsUpdateSecret() bool { return c.KMSKeyID || c.Description }

// key is the change as a comparable string for the fingerprint: a stale
// plan is one whose metadata change is no longer the one observed.
func (c MetadataChange) key() string {
	if !c.Any() {
		return ""
	}
	var b strings.Builder
	if c.KMSKeyID {
		b.WriteString("k")
	}
	if c.Description {
		b.WriteString("d")
	}
	for _, t := range c.Tags {
		b.WriteByte(0)
		b.WriteString(t)
	}
	return b.String()
}

// DiffMetadata compares the configured metadata with an observation. Only
// what is configured is compared: an unset KMS key or description, and tag
// keys that are not configured, never make a difference.
func DiffMetadata(m model.Metadata, obs ObservedSecret) MetadataChange {
	var c MetadataChange
	if m.KMSKeyID != "" && !model.SameKMSKey(m.KMSKeyID, obs.KMSKeyID, obs.ARN) {
		c.KMSKeyID = true
	}
	if m.Description != "" && m.Description != obs.Description {
		c.Description = true
	}
	keys := make([]string, 0, len(m.Tags))
	for k := range m.Tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v, ok := obs.Tags[k]; !ok || v != m.Tags[k] {
			c.Tags = append(c.Tags, k)
		}
	}
	return c
}

// Kinds lists what c changes as plan-file metadata kinds, in
// vocab.MetadataKinds order (kinds only: the plan file never shows a
// configured value or a tag key); nil when nothing changes.
func (c MetadataChange) Kinds() []vocab.MetadataKind {
	var out []vocab.MetadataKind
	if c.KMSKeyID {
		out = append(out, vocab.MetadataKMSKey)
	}
	if c.Description {
		out = append(out, vocab.MetadataDescription)
	}
	if len(c.Tags) > 0 {
		out = append(out, vocab.MetadataTags)
	}
	return out
}

// MetadataSeen is what one observation showed of the metadata a
// configuration manages: the KMS key and the description as DescribeSecret
// returned them, and the value of each configured tag key present. It is
// recorded on an operation when it is planned, so that verification can
// tell a write not yet visible from another writer's (ForeignMetadata).
// It holds configuration-visible metadata only, never a secret value.
type MetadataSeen struct {
	KMSKeyID    string
	Description string
	// Tags holds the configured tag keys the secret carried, with their
	// values; a key absent here was absent.
	Tags map[string]string
}

// SeenMetadata is what obs shows of the metadata m manages (the zero
// MetadataSeen when obs is absent).
func SeenMetadata(m model.Metadata, obs ObservedSecret) MetadataSeen {
	if !obs.Exists {
		return MetadataSeen{}
	}
	s := MetadataSeen{KMSKeyID: obs.KMSKeyID, Description: obs.Description}
	for k := range m.Tags {
		if v, ok := obs.Tags[k]; ok {
			if s.Tags == nil {
				s.Tags = map[string]string{}
			}
			s.Tags[k] = v
		}
	}
	return s
}

// ForeignMetadata reports whether obs shows managed metadata that is
// neither the configured one (what a metadata write of this run set) nor
// what any observation in seen showed before this run's writes (what lag
// could still show): each field that differs from the configuration
// (DiffMetadata) must equal that field in one of seen. A field that does
// not is evidence of another writer, not of propagation lag. Only
// configured fields are compared.
func ForeignMetadata(m model.Metadata, obs ObservedSecret, seen ...MetadataSeen) bool {
	c := DiffMetadata(m, obs)
	if !obs.Exists || !c.Any() {
		return false
	}
	anySeen := func(same func(MetadataSeen) bool) bool {
		return slices.ContainsFunc(seen, same)
	}
	if c.KMSKeyID && !anySeen(func(s MetadataSeen) bool { return s.KMSKeyID == obs.KMSKeyID }) {
		return true
	}
	if c.Description && !anySeen(func(s MetadataSeen) bool { return s.Description == obs.Description }) {
		return true
	}
	for _, k := range c.Tags {
		v, ok := obs.Tags[k]
		if !anySeen(func(s MetadataSeen) bool { sv, sok := s.Tags[k]; return sok == ok && sv == v }) {
			return true
		}
	}
	return false
}
