package planview

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// SaltBytes is the length of a plan file's digest salt (DigestSalt: 16
// random bytes, 32 hex).
const SaltBytes = 16

// key computes the keyed digests of one plan file: HMAC-SHA-256 under the
// file's salt (RFC 2104), each over a domain word, a NUL and the bytes, so
// no two kinds of digest can collide. A digest can be recomputed only with
// the salt, which the file holds: it proves equality with another run's
// values under the same salt and hides the values from anyone without
// them; it is not a secret (docs/security.md).
type key struct{ salt []byte }

// keyed returns the key of salt, nil for an empty salt (nothing bound).
func keyed(salt []byte) *key {
	if len(salt) == 0 {
		return nil
	}
	return &key{salt: salt}
}

func (k *key) digest(domain string, parts ...[]byte) string {
	m := hmac.New(sha256.New, k.salt)
	m.Write([]byte("sops-aws-sync:plan:" + domain))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// fingerprint digests what planning observed of one operation's secret
// (nil o: nothing observed, as for a create of an absent name).
func (k *key) fingerprint(o *Observed) *Fingerprint {
	if o == nil {
		o = &Observed{}
	}
	versions := [][]byte{[]byte(o.ARN)}
	for _, v := range o.Versions {
		versions = append(versions, []byte(v))
	}
	return &Fingerprint{
		Versions: k.digest("versions", versions...),
		Metadata: k.digest("metadata", []byte(o.ARN), o.Metadata),
	}
}

// Salt returns the view's digest salt as bytes (nil when the file binds
// nothing or DigestSalt is not hex): what a run passes as Input.Salt to
// build a view comparable with this one.
func (v View) Salt() []byte {
	b, err := hex.DecodeString(v.DigestSalt)
	if err != nil || len(b) != SaltBytes {
		return nil
	}
	return b
}
