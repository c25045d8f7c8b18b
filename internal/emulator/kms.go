package emulator

import (
	"fmt"
	"net/http"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/kms"
)

// KMS keys: the registry is the package kms (internal/emulator/kms); this
// file is what Secrets Manager does with it (KmsKeyId's form and
// resolution, which keys encrypted a version, the re-encryption of
// UpdateSecret, the failures of an unusable key) and the emulator's public
// names for the registry's types.

// DefaultKMSAlias is the alias of the AWS managed key Secrets Manager uses
// when a secret names no key (or the empty string).
const DefaultKMSAlias = core.SecretsManagerKeyAlias

// KMS key states a KMSKeyFault can put a key into.
const (
	KMSDisabled        = kms.Disabled
	KMSPendingDeletion = kms.PendingDeletion
	KMSAccessDenied    = kms.AccessDenied
)

// KMSKey is one KMS key of the emulator's registry (see kms.Key).
type KMSKey = kms.Key

// KMSAlias points an alias at a key (see kms.Alias).
type KMSAlias = kms.Alias

// KMSDump is GET /_emulator/kms (see kms.Dump).
type KMSDump = kms.Dump

// KMSKeyFault makes one KMS key unusable (see kms.KeyFault).
type KMSKeyFault = kms.KeyFault

// WithKMSKeys adds KMS keys (and their aliases) to the registry. It panics
// on an invalid key, since that is a programming error.
func WithKMSKeys(keys ...KMSKey) Option {
	return func(e *Emulator) {
		e.pendingKeys = append(e.pendingKeys, keys...)
	}
}

// AddKMSKey adds a customer managed key (a known key id only adds or moves
// its aliases) and returns it with its ARN, its generated id if KeyID was
// empty, and all of its aliases.
func (e *Emulator) AddKMSKey(k KMSKey) (KMSKey, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.kms.Add(e.defAccount, e.defRegion, k, e.newVersionID)
}

// SetKMSAlias creates the alias a.AliasName or moves it to a.TargetKeyID (a
// known key id or key ARN of this Region and account).
func (e *Emulator) SetKMSAlias(a KMSAlias) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.kms.SetAlias(e.defAccount, e.defRegion, a)
}

// KMSKeys returns the registry (see KMSDump).
func (e *Emulator) KMSKeys() KMSDump {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.kms.Dump(e.defAccount, e.defRegion)
}

// serveKMS serves GET /_emulator/kms, POST /_emulator/kms/keys and
// POST /_emulator/kms/aliases.
func (e *Emulator) serveKMS(w http.ResponseWriter, r *http.Request) {
	want := http.MethodPost
	if r.URL.Path == "/_emulator/kms" {
		want = http.MethodGet
	}
	if r.Method != want {
		w.Header().Set("Allow", want)
		writeControlError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s needs %s", r.URL.Path, want))
		return
	}
	switch r.URL.Path {
	case "/_emulator/kms":
		writeJSON(w, e.KMSKeys())
	case "/_emulator/kms/keys":
		var k KMSKey
		if !readControl(w, r, &k) {
			return
		}
		if k.ARN != "" || k.AWSManaged {
			writeControlError(w, http.StatusBadRequest, "arn and aws_managed are output only")
			return
		}
		out, err := e.AddKMSKey(k)
		if err != nil {
			writeControlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, out)
	case "/_emulator/kms/aliases":
		var a KMSAlias
		if !readControl(w, r, &a) {
			return
		}
		if err := e.SetKMSAlias(a); err != nil {
			writeControlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, map[string]string{"status": "ok"})
	}
}
