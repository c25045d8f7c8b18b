package canonical

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWholeValues: a whole value comes back as the very same bytes (no
// newline added or removed, CRLF kept, NUL and non-UTF-8 bytes kept for
// Binary); each refusal has its class.
func TestWholeValues(t *testing.T) {
	pem := []byte("-----BEGIN CERTIFICATE-----\r\nMIIB\r\n-----END CERTIFICATE-----\r\n\n")
	keystore := []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0xff, 0xef, 0xbb, 0xbf}
	for _, c := range []struct {
		f  Format
		in []byte
	}{
		{Text, pem}, {Text, []byte("x")}, {Text, []byte(strings.Repeat("é", MaxValueBytes/2))},
		{Binary, keystore}, {Binary, []byte("\xef\xbb\xbfbom is data here")}, {Binary, bytes.Repeat([]byte{0}, MaxValueBytes)},
		{Text, []byte("{ \"not\": \"canonicalised\" }")},
	} {
		out, err := Canonicalize(c.f, c.in)
		if err != nil || !bytes.Equal(out, c.in) {
			t.Errorf("%v %q: got %q, %v; want the same bytes", c.f, c.in[:min(len(c.in), 20)], out[:min(len(out), 20)], err)
		}
	}
	for _, c := range []struct {
		f     Format
		in    []byte
		class string
	}{
		{Text, nil, ClassEmpty}, {Binary, []byte{}, ClassEmpty},
		{Text, bytes.Repeat([]byte("a"), MaxValueBytes+1), ClassTooLarge},
		{Binary, bytes.Repeat([]byte{0}, MaxValueBytes+1), ClassTooLarge},
		{Text, []byte("caf\xe9"), ClassNotUTF8},
		{Text, []byte("\xef\xbb\xbf-----BEGIN"), ClassBOM},
	} {
		_, err := Canonicalize(c.f, c.in)
		var ce *Error
		if !errors.As(err, &ce) || ce.Class != c.class {
			t.Errorf("%v: got %v, want %s", c.f, err, c.class)
		}
		// Whole, the check alone (the decryptor's), refuses alike.
		if err := Whole(c.f, c.in); !errors.As(err, &ce) || ce.Class != c.class {
			t.Errorf("Whole %v: got %v, want %s", c.f, err, c.class)
		}
	}
	if err := Whole(Text, pem); err != nil {
		t.Errorf("Whole of a PEM: %v", err)
	}
}

// FuzzWhole: Text and Binary either return the input itself (1..MaxValueBytes
// bytes; Text only valid UTF-8 without BOM) or a classified error that
// never quotes the input.
func FuzzWhole(f *testing.F) {
	for _, s := range []string{"-----BEGIN CERTIFICATE-----\r\nMIIB\r\n-----END CERTIFICATE-----\n", "", "\xef\xbb\xbfx", "caf\xe9", "\x00", "ssh-ed25519 AAAA\n"} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, text bool) {
		fm := Binary
		if text {
			fm = Text
		}
		out, err := Canonicalize(fm, in)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || !knownClasses[ce.Class] {
				t.Fatalf("unclassified error %v", err)
			}
			if len(in) >= 8 && strings.Contains(err.Error(), string(in)) {
				t.Fatalf("error text contains the input")
			}
			return
		}
		if !bytes.Equal(out, in) || len(in) == 0 || len(in) > MaxValueBytes {
			t.Fatalf("accepted %d bytes as %d bytes", len(in), len(out))
		}
		if text && (!utf8.Valid(in) || bytes.HasPrefix(in, utf8BOM)) {
			t.Fatalf("text accepted that is not UTF-8 or starts with a BOM")
		}
	})
}
