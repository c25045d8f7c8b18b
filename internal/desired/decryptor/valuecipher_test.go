package decryptor

import (
	"crypto/rand"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	sopsaes "github.com/getsops/sops/v3/aes"
)

// outcome is what a cipher's Decrypt gave: the value, whether it failed,
// whether it panicked.
type outcome struct {
	value    any
	failed   bool
	panicked bool
}

func decryptWith(decrypt func(string, []byte, string) (any, error), ct string, key []byte, ad string) (o outcome) {
	defer func() {
		if recover() != nil {
			o = outcome{panicked: true}
		}
	}()
	v, err := decrypt(ct, key, ad)
	if err != nil {
		return outcome{failed: true}
	}
	return outcome{value: v}
}

func sopsDecrypt(ct string, key []byte, ad string) outcome {
	return decryptWith(sopsaes.NewCipher().Decrypt, ct, key, ad)
}

func oursDecrypt(ct string, key []byte, ad string) outcome {
	return decryptWith(newValueCipher().Decrypt, ct, key, ad)
}

func newDataKey(t testing.TB) []byte {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return key
}

// Every value SOPS encrypts decrypts to the same Go value, of the same
// type, through valueCipher as through SOPS's cipher; a wrong key or
// additional data fails both (and then valueCipher's error is SOPS's own).
func TestValueCipherAgreesWithSOPS(t *testing.T) {
	key := newDataKey(t)
	values := []any{
		"", "x", "héllo wörld", strings.Repeat("a", 5000), "ENC[AES256_GCM,data:inside,iv:x,tag:y,type:str]",
		0, 1, -42, math.MaxInt, math.MinInt,
		0.0, 1.5, -3.25e300, math.SmallestNonzeroFloat64,
		true, false,
	}
	for i, v := range values {
		ad := fmt.Sprintf("root:key%d:", i)
		ct, err := sopsaes.NewCipher().Encrypt(v, key, ad)
		if err != nil {
			t.Fatalf("encrypt %#v: %v", v, err)
		}
		if v != "" {
			if _, ok := parseStrictValue(ct); !ok {
				t.Errorf("SOPS's own ciphertext %q is not in the strict form", ct)
			}
		}
		want := sopsDecrypt(ct, key, ad)
		got := oursDecrypt(ct, key, ad)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%#v: valueCipher %#v, SOPS %#v", v, got, want)
		}
		if want.failed || want.panicked {
			t.Errorf("%#v: SOPS failed on its own ciphertext", v)
		}
		if v == "" {
			continue // SOPS leaves the empty string unencrypted
		}
		other := newDataKey(t)
		if got, want := oursDecrypt(ct, other, ad), sopsDecrypt(ct, other, ad); !reflect.DeepEqual(got, want) || !got.failed {
			t.Errorf("%#v under another key: valueCipher %#v, SOPS %#v", v, got, want)
		}
		if got, want := oursDecrypt(ct, key, ad+"x"), sopsDecrypt(ct, key, ad+"x"); !reflect.DeepEqual(got, want) || !got.failed {
			t.Errorf("%#v under other additional data: valueCipher %#v, SOPS %#v", v, got, want)
		}
	}
}

// One valueCipher decrypts the values of a tree under one key, then
// another key's values: the kept AES-GCM follows the key.
func TestValueCipherFollowsTheKey(t *testing.T) {
	c := newValueCipher()
	for range 3 {
		key := newDataKey(t)
		ct, err := sopsaes.NewCipher().Encrypt("v", key, "a:")
		if err != nil {
			t.Fatal(err)
		}
		if got := decryptWith(c.Decrypt, ct, key, "a:"); !reflect.DeepEqual(got, outcome{value: "v"}) {
			t.Fatalf("got %#v", got)
		}
	}
}

// Values outside the fast path are SOPS's: bytes (whose stash SOPS
// cannot hash), comments, unknown types, malformed base64, other forms.
func TestValueCipherHandsTheRestToSOPS(t *testing.T) {
	key := newDataKey(t)
	good, err := sopsaes.NewCipher().Encrypt("v", key, "a:")
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range []string{
		strings.Replace(good, "type:str]", "type:bytes]", 1),
		strings.Replace(good, "type:str]", "type:comment]", 1),
		strings.Replace(good, "type:str]", "type:time]", 1),
		strings.Replace(good, "type:str]", "type:unknown]", 1),
		strings.Replace(good, "data:", "data:=", 1),
		strings.Replace(good, ",iv:", ",iv:==", 1),
		good + "tail",
		"ENC[AES256_GCM,data:a,b,iv:c,tag:d,type:str]",
		"plain",
	} {
		if got, want := oursDecrypt(ct, key, "a:"), sopsDecrypt(ct, key, "a:"); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: valueCipher %#v, SOPS %#v", ct, got, want)
		}
	}
}

// The strict form's four fields are the regexp's four groups, on SOPS's
// own ciphertexts and on strings near the form.
func TestParseStrictValueIsTheRegexpsGroups(t *testing.T) {
	for _, s := range []string{
		"ENC[AES256_GCM,data:QUJD,iv:aXY=,tag:dGFn,type:str]",
		"ENC[AES256_GCM,data:a+/=,iv:b,tag:c,type:int]",
		"ENC[AES256_GCM,data:a,iv:b,tag:c,type:str]]",
		"ENC[AES256_GCM,data:a,iv:b,tag:c,type:]",
		"ENC[AES256_GCM,data:,iv:b,tag:c,type:str]",
		"ENC[AES256_GCM,data:a,iv:b,tag:c,type:STR]",
		"ENC[AES256_GCM,data:a,iv:b,tag:c,type:str] ",
		"ENC[AES256_GCM,data:a,iv:b,iv:b,tag:c,type:str]",
	} {
		checkStrictAgainstRegexp(t, s)
	}
}

func checkStrictAgainstRegexp(t *testing.T, s string) {
	t.Helper()
	v, ok := parseStrictValue(s)
	if !ok {
		return
	}
	m := sopsCiphertext.FindStringSubmatch(s)
	want := []string{s, v.data, v.iv, v.tag, v.typ}
	if !slices.Equal(m, want) {
		t.Errorf("%q: strict %q, regexp %q", s, want, m)
	}
	if !isSOPSCiphertext(s) {
		t.Errorf("%q: strict but not SOPS ciphertext", s)
	}
}

// FuzzParseStrictValue: whatever the string, the strict parse either
// declines or agrees with the regexp on the whole match and every group,
// and isSOPSCiphertext is the regexp's answer.
func FuzzParseStrictValue(f *testing.F) {
	f.Add("ENC[AES256_GCM,data:QUJD,iv:aXY=,tag:dGFn,type:str]")
	f.Add("ENC[AES256_GCM,data:a,iv:b,tag:c,type:str]x")
	f.Add("ENC[AES256_GCM,data:a,b,iv:c,tag:d,type:e]")
	f.Fuzz(func(t *testing.T, s string) {
		checkStrictAgainstRegexp(t, s)
		if isSOPSCiphertext(s) != sopsCiphertext.MatchString(s) {
			t.Errorf("%q: isSOPSCiphertext %v, regexp %v", s, isSOPSCiphertext(s), !isSOPSCiphertext(s))
		}
	})
}

// FuzzValueCipher: on any ciphertext, key and additional data, valueCipher
// gives SOPS's outcome (value, failure or panic).
func FuzzValueCipher(f *testing.F) {
	key := make([]byte, 32)
	for _, v := range []any{"s", 7, 2.5, true} {
		ct, err := sopsaes.NewCipher().Encrypt(v, key, "a:")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(ct, "a:", false)
		f.Add(ct, "b:", false)
		f.Add(ct, "a:", true)
	}
	f.Fuzz(func(t *testing.T, ct, ad string, shortKey bool) {
		k := key
		if shortKey {
			k = key[:16]
		}
		if got, want := oursDecrypt(ct, k, ad), sopsDecrypt(ct, k, ad); !reflect.DeepEqual(got, want) {
			t.Errorf("%q %q: valueCipher %#v, SOPS %#v", ct, ad, got, want)
		}
	})
}
