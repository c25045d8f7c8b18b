package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Fingerprint is what planning saw of one name, compared with a fresh
// observation just before each mutation (SPEC §6: name, kind, source, hash
// of value, current version id, conflict class). ARN is included too, so a
// secret deleted and re-created under the same name is never written through
// a stale plan. It holds no value, only a SHA-256 of it. Comparable with ==.
type Fingerprint struct {
	Name   string
	ARN    string
	Action Action
	// Source is the observed source tag value ("" when absent).
	Source string
	// ValueHash is "" when no value was read, "missing" when the read found
	// none, else "s:<sha256 hex>", "b:<sha256 hex>", "sb:…" or "none" by
	// which payload fields were present.
	ValueHash string
	// CurrentVersion is the AWSCURRENT version id(s), comma-joined.
	CurrentVersion string
	Conflict       vocab.ConflictClass
}

// FingerprintOf returns the fingerprint of one name's observation and the
// decision taken on it.
func FingerprintOf(name string, obs ObservedSecret, d Decision) Fingerprint {
	fp := Fingerprint{Name: name, Action: d.Action, Conflict: d.Conflict}
	if !obs.Exists {
		return fp
	}
	fp.ARN = obs.ARN
	fp.Source = obs.Tags[model.TagSource]
	fp.CurrentVersion = strings.Join(obs.CurrentVersionIDs(), ",")
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
	return kind + ":" + v.VersionID + ":" + hex.EncodeToString(h.Sum(nil))
}
