package decryptor

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"strconv"
	"strings"

	sopsaes "github.com/getsops/sops/v3/aes"
)

// sopsValue is one encrypted SOPS value split into its fields, as SOPS's
// AES cipher reads them (sops/v3 aes/cipher.go): ENC[AES256_GCM,data:…,
// iv:…,tag:…,type:…]. The fields are still base64 (data, iv, tag).
type sopsValue struct {
	data, iv, tag, typ string
}

// parseStrictValue splits s when it is an encrypted SOPS value in the form
// SOPS writes: "ENC[AES256_GCM,data:" D ",iv:" I ",tag:" T ",type:" Y "]"
// and nothing after, where D, I and T are non-empty runs of the standard
// base64 alphabet (A–Z, a–z, 0–9, +, /, =) and Y a non-empty run of a–z.
// For such a string the regexp of SOPS's aes.parse (sopsCiphertext)
// matches with the same four groups: none of the runs can hold a ",", a
// ":" or a "]", so each separator occurs once (FuzzParseStrictValue holds
// it). ok is false for any other string, which callers hand to the regexp
// (isSOPSCiphertext) or to SOPS itself (valueCipher): this is a fast path
// for the usual form, never a second definition of it. The regexp costs
// about 40 µs per value with its backtracking; this scan a few hundred ns
// (docs/benchmarks.md, the profile of the CPU per secret).
func parseStrictValue(s string) (v sopsValue, ok bool) {
	const prefix = "ENC[AES256_GCM,data:"
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return v, false
	}
	if v.data, rest, ok = base64Field(rest, ",iv:"); !ok {
		return v, false
	}
	if v.iv, rest, ok = base64Field(rest, ",tag:"); !ok {
		return v, false
	}
	if v.tag, rest, ok = base64Field(rest, ",type:"); !ok {
		return v, false
	}
	n := 0
	for n < len(rest) && 'a' <= rest[n] && rest[n] <= 'z' {
		n++
	}
	if n == 0 || rest[n:] != "]" {
		return v, false
	}
	v.typ = rest[:n]
	return v, true
}

// base64Field is the non-empty run of base64 characters at the start of
// s, which sep must follow, and what follows sep.
func base64Field(s, sep string) (field, rest string, ok bool) {
	n := 0
	for n < len(s) && isBase64Char(s[n]) {
		n++
	}
	if n == 0 || !strings.HasPrefix(s[n:], sep) {
		return "", "", false
	}
	return s[:n], s[n+len(sep):], true
}

func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// isSOPSCiphertext reports whether s has the shape of an encrypted SOPS
// value (sopsCiphertext): the strict form at once, any other string by the
// regexp itself.
func isSOPSCiphertext(s string) bool {
	if _, ok := parseStrictValue(s); ok {
		return true
	}
	return sopsCiphertext.MatchString(s)
}

// valueCipher is the sops.Cipher that decrypts one document's tree and MAC
// under its data key. A value in the strict form (parseStrictValue) of
// type str, int, float or bool is decrypted here, with one AES-GCM of the
// data key for the whole document (SOPS's aes.Cipher parses each value with
// its regexp and builds the AES key schedule and GCM again for each); the
// steps and the result are SOPS's: base64 of the three fields, AES-256-GCM
// with the iv's length as nonce size, the tag appended to the data, the
// additional data as given, then the type's conversion. Every other value
// (the empty string, another form, the types bytes, time and comment) and
// every value whose decryption or conversion fails is handed to SOPS's own
// cipher, so SOPS's results, errors (read by classifyTreeError) and
// panics stay SOPS's. TestValueCipherAgreesWithSOPS and FuzzValueCipher
// compare the two.
type valueCipher struct {
	sops sopsaes.Cipher
	key  []byte
	aead cipher.AEAD
	size int // the aead's nonce size
}

func newValueCipher() *valueCipher { return &valueCipher{sops: sopsaes.NewCipher()} }

// Encrypt is SOPS's (a decryption never encrypts).
func (c *valueCipher) Encrypt(plaintext any, key []byte, additionalData string) (string, error) {
	return c.sops.Encrypt(plaintext, key, additionalData)
}

// Decrypt implements sops.Cipher.
func (c *valueCipher) Decrypt(ciphertext string, key []byte, additionalData string) (any, error) {
	if out, ok := c.decrypt(ciphertext, key, additionalData); ok {
		return out, nil
	}
	return c.sops.Decrypt(ciphertext, key, additionalData)
}

// decrypt is the fast path; ok false hands the value to SOPS.
func (c *valueCipher) decrypt(ciphertext string, key []byte, additionalData string) (any, bool) {
	v, ok := parseStrictValue(ciphertext)
	if !ok {
		return nil, false
	}
	switch v.typ {
	case "str", "int", "float", "bool":
	default:
		return nil, false
	}
	data, err := base64.StdEncoding.DecodeString(v.data)
	if err != nil {
		return nil, false
	}
	iv, err := base64.StdEncoding.DecodeString(v.iv)
	if err != nil {
		return nil, false
	}
	tag, err := base64.StdEncoding.DecodeString(v.tag)
	if err != nil {
		return nil, false
	}
	aead := c.gcm(key, len(iv))
	if aead == nil {
		return nil, false
	}
	plain, err := aead.Open(nil, iv, append(data, tag...), []byte(additionalData))
	if err != nil {
		return nil, false
	}
	s := string(plain)
	clear(plain)
	var out any
	switch v.typ {
	case "str":
		out = s
	case "int":
		out, err = strconv.Atoi(s)
	case "float":
		out, err = strconv.ParseFloat(s, 64)
	case "bool":
		out, err = strconv.ParseBool(s)
	}
	if err != nil {
		return nil, false
	}
	return out, true
}

// gcm is the AES-GCM of key with nonces of size bytes, made once and kept
// while the key and size stay the same (one document's values); nil when
// the key or size is one SOPS's own calls would refuse.
func (c *valueCipher) gcm(key []byte, size int) cipher.AEAD {
	if c.aead != nil && c.size == size && bytes.Equal(c.key, key) {
		return c.aead
	}
	if size == 0 {
		return nil
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil
	}
	aead, err := cipher.NewGCMWithNonceSize(block, size)
	if err != nil {
		return nil
	}
	c.key, c.aead, c.size = bytes.Clone(key), aead, size
	return aead
}
