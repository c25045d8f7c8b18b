package emulator

import (
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

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

// defaultKeyMarker is how ListSecretVersionIds names the AWS managed key in a
// version's KmsKeyIds (field report, see docs/emulator.md).
const defaultKeyMarker = "DefaultEncryptionKey"

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

// Error messages: the failure messages are the model's documentation of
// EncryptionFailure and DecryptionFailure; the access message is a field
// report (aws-cdk#7677, external-secrets).
const (
	msgEncryptFailure  = "Secrets Manager can't encrypt the protected secret text using the provided KMS key. Check that the KMS key is available, enabled, and not in an invalid state."
	msgDecryptFailure  = "Secrets Manager can't decrypt the protected secret text using the provided KMS key."
	msgKMSAccessDenied = "Access to KMS is not allowed"
)

// validKMSKeyIDForm checks KmsKeyId without the registry: length (model
// KmsKeyIdType 0..2048) and one of the four forms; "" means the default key.
func validKMSKeyIDForm(id *string) *core.Error {
	if id == nil || *id == "" {
		return nil
	}
	if utf8.RuneCountInString(*id) > maxKmsKeyIDLen {
		return core.ErrTooLong("kmsKeyId", maxKmsKeyIDLen)
	}
	if !kms.ValidForm(*id) {
		return core.Errf("InvalidParameterException", "The operation failed because of an invalid KMS key: Invalid keyId")
	}
	return nil
}

// resolveKMS resolves a KmsKeyId to a key id of the registry ("" means the
// default key). The caller holds e.mu.
func (e *call) resolveKMS(s string) (string, *core.Error) {
	return e.kms.Resolve(e.account, e.region, s)
}

// storedKeyID resolves a secret's stored KmsKeyId; a reference that no
// longer resolves (it cannot happen: keys and aliases are never removed)
// falls back to the default key.
func (e *call) storedKeyID(s *secret) string {
	id, err := e.resolveKMS(s.kmsKeyID)
	if err != nil {
		return core.SecretsManagerKeyID
	}
	return id
}

// kmsState is the fault state of key id ("" when usable).
func (e *call) kmsState(id string) string {
	return e.kms.State(e.account, e.region, id, e.faults.KMSKeyFaults)
}

func (e *Emulator) kmsFailure(state string, encrypt bool) *core.Error {
	var err *core.Error
	switch {
	case state == KMSAccessDenied:
		err = core.Errf("AccessDeniedException", msgKMSAccessDenied)
	case encrypt:
		err = core.Errf("EncryptionFailure", msgEncryptFailure)
	default:
		err = core.Errf("DecryptionFailure", msgDecryptFailure)
	}
	e.stats.Faults["error:"+err.Code]++
	return err
}

// encryptWith reports whether a new value can be encrypted under key id
// (kms:GenerateDataKey), as the error AWS answers when it cannot.
func (e *call) encryptWith(id string) *core.Error {
	if st := e.kmsState(id); st != "" {
		return e.kmsFailure(st, true)
	}
	return nil
}

// decrypt reports whether v can be decrypted: under any of the keys that
// encrypted it (after a key change the labelled versions carry both the
// previous and the new key). When none is usable the newest key's state
// chooses the error.
func (e *call) decrypt(v *version) *core.Error {
	last := ""
	for _, id := range v.keys {
		st := e.kmsState(id)
		if st == "" {
			return nil
		}
		last = st
	}
	if last == "" { // a version without keys (never produced): readable
		return nil
	}
	return e.kmsFailure(last, false)
}

// reencrypt applies UpdateSecret's rule for a changed key (user guide
// "Change the encryption key"): the versions labelled AWSCURRENT, AWSPENDING
// or AWSPREVIOUS are encrypted under the new key as well, keeping the
// previous key, so either can decrypt them; no version is created and no
// label moves. A version that cannot be decrypted with its keys, or when
// the new key cannot encrypt, is left as it is, silently, as the
// UpdateSecret reference describes for missing kms:Decrypt/kms:Encrypt.
func (e *call) reencrypt(n *secret, newID string) {
	if e.kmsState(newID) != "" {
		return
	}
	for i, v := range n.versions {
		labels := n.stages[v.id]
		if !slices.ContainsFunc(labels, func(l string) bool {
			return l == "AWSCURRENT" || l == "AWSPENDING" || l == "AWSPREVIOUS"
		}) || slices.Contains(v.keys, newID) {
			continue
		}
		if !slices.ContainsFunc(v.keys, func(id string) bool { return e.kmsState(id) == "" }) && len(v.keys) > 0 {
			continue
		}
		c := *v // versions are shared with older snapshots: copy, never mutate
		c.keys = append(slices.Clone(v.keys), newID)
		n.versions[i] = &c
	}
}

// keyIDsOut renders a version's keys for ListSecretVersionIds and the state
// dump: the AWS managed key as DefaultEncryptionKey.
func keyIDsOut(v *version) []string {
	out := make([]string, 0, len(v.keys))
	for _, id := range v.keys {
		if id == core.SecretsManagerKeyID {
			id = defaultKeyMarker
		}
		out = append(out, id)
	}
	return out
}

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
