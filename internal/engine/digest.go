package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// stateDigestDomain separates state digests from every other hash of the
// tool (a change of the rule is a new domain, so old cache keys all miss).
const stateDigestDomain = "sops-aws-sync/state/v1"

// StateDigestOf is the value-free digest of a converged scope for cache
// keys and redeploy decisions: SHA-256 over the domain, then for every
// desired secret of want (name order) its name, its full ARN and the ids of
// its AWSCURRENT versions as obs saw them, NUL-separated. A value never
// enters it: a secret's new value is a new version id (PutSecretValue), a
// re-created secret a new ARN, a secret added or removed another list; a
// change of metadata, tags or replicas alone leaves it as it was (a
// service reading the value needs no restart for them). It names nothing
// by itself, but it is an unsalted hash of names, so it is only written
// where the names are (the changes file).
func StateDigestOf(want model.State, obs map[string]plan.ObservedSecret) string {
	h := sha256.New()
	h.Write([]byte(stateDigestDomain))
	for _, s := range want.Secrets {
		o := obs[s.Name]
		h.Write([]byte{0})
		h.Write([]byte(s.Name))
		h.Write([]byte{0})
		h.Write([]byte(o.ARN))
		h.Write([]byte{0})
		h.Write([]byte(strings.Join(o.CurrentVersionIDs(), ",")))
	}
	return changes.DigestPrefix + hex.EncodeToString(h.Sum(nil))
}
