package secretsmanager

import (
	"slices"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// KMS keys as Secrets Manager uses them: a KmsKeyId resolved through
// core.Keys, the keys that encrypted each version, the re-encryption of
// UpdateSecret and the failures of an unusable key.

// defaultKeyMarker is how ListSecretVersionIds names the AWS managed key in a
// version's KmsKeyIds (field report, see docs/emulator.md).
const defaultKeyMarker = "DefaultEncryptionKey"

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
	if !core.ValidKeyForm(*id) {
		return core.Errf("InvalidParameterException", "The operation failed because of an invalid KMS key: Invalid keyId")
	}
	return nil
}

// resolveKMS resolves a KmsKeyId to a key id of the registry ("" means the
// default key). The caller holds e.mu.
func (e *Call) resolveKMS(s string) (string, *core.Error) {
	return e.Keys().Resolve(e.Account, e.Region, s)
}

// storedKeyID resolves a secret's stored KmsKeyId; a reference that no
// longer resolves (it cannot happen: keys and aliases are never removed)
// falls back to the default key.
func (e *Call) storedKeyID(s *secret) string {
	id, err := e.resolveKMS(s.kmsKeyID)
	if err != nil {
		return core.SecretsManagerKeyID
	}
	return id
}

// kmsState is the fault state of key id ("" when usable).
func (e *Call) kmsState(id string) string {
	return e.Keys().State(e.Account, e.Region, id)
}

func (e *Call) kmsFailure(state string, encrypt bool) *core.Error {
	var err *core.Error
	switch {
	case state == core.KeyAccessDenied:
		err = core.Errf("AccessDeniedException", msgKMSAccessDenied)
	case encrypt:
		err = core.Errf("EncryptionFailure", msgEncryptFailure)
	default:
		err = core.Errf("DecryptionFailure", msgDecryptFailure)
	}
	e.CountFault("error:" + err.Code)
	return err
}

// encryptWith reports whether a new value can be encrypted under key id
// (kms:GenerateDataKey), as the error AWS answers when it cannot.
func (e *Call) encryptWith(id string) *core.Error {
	if st := e.kmsState(id); st != "" {
		return e.kmsFailure(st, true)
	}
	return nil
}

// decrypt reports whether v can be decrypted: under any of the keys that
// encrypted it (after a key change the labelled versions carry both the
// previous and the new key). When none is usable the newest key's state
// chooses the error.
func (e *Call) decrypt(v *version) *core.Error {
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
func (e *Call) reencrypt(n *secret, newID string) {
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
