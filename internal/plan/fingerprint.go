package plan

import (
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Fingerprint is what planning saw of one name, compared with a fresh
// observation just before each mutation. SPEC §6 lists name, kind, source,
// hash of value, current version id and conflict class: here Name, Action
// (the decision), Source, ValueHash, CurrentVersions (every AWSCURRENT id)
// and Conflict. ARN is included too, so a secret deleted and re-created
// under the same name is never written through a stale plan, and Metadata,
// the metadata change planned. It holds no value, only a SHA-256 of it.
// Compare two with Equal (CurrentVersions is a slice, so == does not
// apply).
type Fingerprint struct {
	Name string
	ARN  string
	// NamedARN is ObservedSecret.NamedARN: ARN (and Source) follow from
	// the name.
	NamedARN bool
	Action   vocab.Action
	// Source is the observed source tag value ("" when absent).
	Source string
	// ValueHash is "" when no value was read, "missing" when the read found
	// none, "none" when the version has neither payload field, else
	// "<fields>:<version id>:<sha256 hex>" where fields is "s", "b" or "sb"
	// (SecretString, SecretBinary, both), the hash over those fields.
	ValueHash string
	// CurrentVersions are the ids of the versions labelled AWSCURRENT,
	// sorted ascending (ObservedSecret.CurrentVersionIDs); nil when none or
	// absent. More than one is a staging conflict (SPEC §4.1).
	CurrentVersions []string
	Conflict        vocab.ConflictClass
	// Metadata is the metadata change planned (MetadataChange.key): the
	// precondition fails when the observed metadata now asks for another.
	Metadata string
	// Replicas is the replica change planned (ReplicaChange.key): the
	// precondition fails when the observed replicas now ask for another.
	Replicas string
}

// Equal reports whether two fingerprints are the same: every field equal,
// CurrentVersions element by element (nil and empty are the same).
func (f Fingerprint) Equal(g Fingerprint) bool {
	return f.Name == g.Name && f.ARN == g.ARN && f.NamedARN == g.NamedARN && f.Action == g.Action && f.Source == g.Source &&
		f.ValueHash == g.ValueHash && f.Conflict == g.Conflict && f.Metadata == g.Metadata && f.Replicas == g.Replicas && slices.Equal(f.CurrentVersions, g.CurrentVersions)
}

// FingerprintOf returns the fingerprint of one name's observation and the
// decision taken on it.
func FingerprintOf(name string, obs ObservedSecret, d Decision) Fingerprint {
	fp := Fingerprint{Name: name, Action: d.Action, Conflict: d.Conflict, Metadata: d.Metadata.key(), Replicas: d.Replicas.key()}
	if !obs.Exists {
		return fp
	}
	fp.ARN, fp.NamedARN = obs.ARN, obs.NamedARN
	fp.Source = obs.Tags[model.TagSource]
	fp.CurrentVersions = obs.CurrentVersionIDs()
	fp.ValueHash = valueHash(obs.Current)
	return fp
}

func valueHash(v *CurrentValue) string {
	switch {
	case v == nil:
		return ""
	case v.Missing:
		return "missing"
	}
	h := sha256.New()
	kind := ""
	if v.HasString {
		kind += "s"
		h.Write([]byte{'s'})
		h.Write(v.String)
	}
	if v.HasBinary {
		kind += "b"
		h.Write([]byte{'b'})
		h.Write(v.Binary)
	}
	if kind == "" {
		return "none"
	}
	return kind + ":" + v.VersionID + ":" + fmt.Sprintf("%x", h.Sum(nil))
}
