package canonical

import (
	"errors"
	"strings"
	"testing"
)

// marker appears in the content of bad inputs; no error text may contain it.
const marker = "s3cr3t"

func TestCanonicalizeAcceptsAndCanonicalizes(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		in     string
		want   string
	}{
		{"json member order", JSON, `{"b":1,"a":"x"}`, `{"a":"x","b":1}`},
		{"json number spellings", JSON,
			`{"a":1.0,"b":1e2,"c":-0,"d":0.1,"e":1E-7,"f":9007199254740991,"g":-9007199254740991,"h":-0.0,"i":5e-324,"j":123.456e-2}`,
			`{"a":1,"b":100,"c":0,"d":0.1,"e":1e-7,"f":9007199254740991,"g":-9007199254740991,"h":0,"i":5e-324,"j":1.23456}`},
		{"json nested and arrays", JSON, ` {"z":{"y":[1,{"b":null,"a":true}],"x":[]},"a":{}} `, `{"a":{},"z":{"x":[],"y":[1,{"a":true,"b":null}]}}`},
		{"json unicode and escapes", JSON, `{"\u00e9":"\ud83d\ude00","a\/b":"<&>","t":"\t\u0001"}`, `{"a/b":"<&>","t":"\t\u0001","é":"😀"}`},
		{"json empty object", JSON, `{}`, `{}`},
		{"json crlf whitespace", JSON, "{\r\n  \"a\": 1\r\n}\r\n", `{"a":1}`},
		{"json non-scalar values kept", JSON, `{"value":{"value":"x"}}`, `{"value":{"value":"x"}}`},
		{"yaml same content as json", YAML, "b: 1\na: x\n", `{"a":"x","b":1}`},
		{"yaml number spellings", YAML, "a: 1.0\nb: 1e2\nc: -0\nd: 0.1\ne: 1.0e-7\nf: 9007199254740991\ng: -9007199254740991\nh: 0x10\ni: 0o17\nj: +5\nk: 1_000\n",
			`{"a":1,"b":100,"c":0,"d":0.1,"e":1e-7,"f":9007199254740991,"g":-9007199254740991,"h":16,"i":15,"j":5,"k":1000}`},
		{"yaml non-decimal spellings tagged !!float, up to 2^53-1", YAML,
			"a: !!float 0x10\nb: !!float 0o17\nc: !!float -0x10\nd: !!float 0x1F_FFFF_FFFF_FFFF\ne: !!float -0x1FFFFFFFFFFFFF\n",
			`{"a":16,"b":15,"c":-16,"d":9007199254740991,"e":-9007199254740991}`},
		{"yaml scalars", YAML, "n: null\nt: ~\nb: true\nf: false\ns: 'quoted: yes'\nd: \"2026-01-01\"\ny: yes\nq: \"123\"\n",
			`{"b":true,"d":"2026-01-01","f":false,"n":null,"q":"123","s":"quoted: yes","t":null,"y":"yes"}`},
		{"yaml nested and flow", YAML, "z:\n  y: [1, {b: null, a: true}]\n  x: []\na: {}\n", `{"a":{},"z":{"x":[],"y":[1,{"a":true,"b":null}]}}`},
		{"yaml block scalars", YAML, "k: |\n  line1\n  line2\n", `{"k":"line1\nline2\n"}`},
		{"yaml explicit str tag", YAML, "a: !!str 2026-01-01\n!!str 1: b\n", `{"1":"b","a":"2026-01-01"}`},
		{"yaml document markers", YAML, "---\na: 1\n...\n", `{"a":1}`},
		{"yaml crlf", YAML, "a: x\r\nb: 2\r\n", `{"a":"x","b":2}`},
		{"yaml unicode escape", YAML, "a: \"\\u00e9\\U0001F600\"\n", `{"a":"é😀"}`},
		{"dotenv basic", Dotenv, "A=1\nB=x=y\n#comment\n\nC=a\\nb\n", `{"A":"1","B":"x=y","C":"a\nb"}`},
		{"dotenv crlf stripped", Dotenv, "A=1\r\nB=two\r\n#c\r\n\r\n", `{"A":"1","B":"two"}`},
		{"dotenv keeps spaces quotes and shell syntax", Dotenv, "K = v \nQ=\"q\"\nS=$HOME\n", `{"K ":" v ","Q":"\"q\"","S":"$HOME"}`},
		{"dotenv brace value is a string", Dotenv, "J={\"value\": \"x\"}\n", `{"J":"{\"value\": \"x\"}"}`},
		{"dotenv empty value", Dotenv, "E=\n", `{"E":""}`},
		{"dotenv no final newline", Dotenv, "A=1", `{"A":"1"}`},
		{"dotenv inner cr kept", Dotenv, "A=x\ry\n", `{"A":"x\ry"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Canonicalize(c.format, []byte(c.in))
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			if string(got) != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
			again, err := FromJSON(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("canonical form is not a fixed point: %s, %v", again, err)
			}
		})
	}
}

// TestCanonicalizeRejects is layer (b) of the bad-input table: plaintext fed
// straight to the canonicalizer, including what sops itself refuses to
// encrypt (a hand-made or future-sops document may still carry it). Layer
// (a), through real sops-encrypted fixtures, is in internal/desired.
func TestCanonicalizeRejects(t *testing.T) {
	big := strings.Repeat("x", MaxValueBytes)
	cases := []struct {
		name   string
		format Format
		in     string
		class  string
	}{
		{"json bom", JSON, "\ufeff{\"a\":\"" + marker + "\"}", ClassBOM},
		{"yaml bom", YAML, "\ufeffa: " + marker + "\n", ClassBOM},
		{"dotenv bom inside first key", Dotenv, "\ufeffA=" + marker + "\n", ClassBOM},
		{"json invalid utf8", JSON, "{\"a\":\"" + marker + "\xff\"}", ClassNotUTF8},
		{"yaml invalid utf8", YAML, "a: " + marker + "\xc3\x28\n", ClassNotUTF8},
		{"dotenv invalid utf8", Dotenv, "A=" + marker + "\xed\xa0\x80\n", ClassNotUTF8},
		{"json latin1", JSON, "{\"a\":\"caf\xe9\"}", ClassNotUTF8},
		{"json lone high surrogate escape", JSON, `{"a":"` + marker + `\ud800"}`, ClassNotUTF8},
		{"json lone low surrogate escape", JSON, `{"a":"\udc00` + marker + `"}`, ClassNotUTF8},
		{"json reversed surrogates", JSON, `{"a":"\udc00\ud800"}`, ClassNotUTF8},
		{"json surrogate in key", JSON, `{"\ud800":"` + marker + `"}`, ClassNotUTF8},
		{"json top-level array", JSON, `["` + marker + `"]`, ClassNotObject},
		{"json top-level string", JSON, `"` + marker + `"`, ClassNotObject},
		{"json top-level null", JSON, `null`, ClassNotObject},
		{"json top-level number", JSON, `42`, ClassNotObject},
		{"yaml top-level sequence", YAML, "- " + marker + "\n", ClassNotObject},
		{"yaml top-level scalar", YAML, marker + "\n", ClassNotObject},
		{"json duplicate key", JSON, `{"a":"` + marker + `","a":"x"}`, ClassDuplicateKey},
		{"json nested duplicate key", JSON, `{"a":{"b":1,"c":{"d":"` + marker + `","d":2}}}`, ClassDuplicateKey},
		{"json duplicate key in array element", JSON, `{"a":[{"k":1},{"k":1,"k":2}]}`, ClassDuplicateKey},
		{"json duplicate key via escape", JSON, `{"a":1,"\u0061":"` + marker + `"}`, ClassDuplicateKey},
		{"yaml duplicate key", YAML, "a: " + marker + "\na: 2\n", ClassDuplicateKey},
		{"yaml nested duplicate key", YAML, "a:\n  b: 1\n  b: " + marker + "\n", ClassDuplicateKey},
		{"yaml duplicate key quoted and plain", YAML, "a: 1\n'a': 2\n", ClassDuplicateKey},
		{"dotenv duplicate key", Dotenv, "A=" + marker + "\nA=2\n", ClassDuplicateKey},
		{"dotenv duplicate key across crlf", Dotenv, "A=1\r\nA=2\n", ClassDuplicateKey},
		{"json two objects", JSON, `{"a":1}{"b":"` + marker + `"}`, ClassMultiDocument},
		{"json object then array", JSON, "{}\n[]", ClassMultiDocument},
		{"yaml second document", YAML, "a: 1\n---\nb: " + marker + "\n", ClassMultiDocument},
		{"yaml second empty document", YAML, "a: 1\n---\n", ClassMultiDocument},
		{"yaml anchor and alias", YAML, "a: &x " + marker + "\nb: *x\n", ClassAnchorOrAlias},
		{"yaml anchor without alias", YAML, "a: &x {b: " + marker + "}\n", ClassAnchorOrAlias},
		{"yaml merge key as sops emits it", YAML, "base: {a: 1}\nc:\n  !!merge <<: {a: 2}\n", ClassAnchorOrAlias},
		{"yaml merge key with alias", YAML, "base: &b {a: 1}\nc:\n  <<: *b\n", ClassAnchorOrAlias},
		// SOPS's YAML store (go.yaml.in/yaml v3.0.6 and later) writes a
		// decrypted merge key quoted: a literal "<<" is refused too.
		{"yaml merge key as sops decrypts it since go.yaml.in/yaml v3.0.6", YAML, "base: {a: 1}\nc:\n  \"<<\": {a: " + marker + "}\n", ClassAnchorOrAlias},
		{"yaml quoted merge-looking key", YAML, "'<<': " + marker + "\n", ClassAnchorOrAlias},
		{"yaml anchored root", YAML, "&r\na: 1\n", ClassAnchorOrAlias},
		{"yaml alias as key", YAML, "a: &k x\n*k : y\n", ClassAnchorOrAlias},
		{"yaml integer key", YAML, "1: " + marker + "\n", ClassNonStringKey},
		{"yaml bool key", YAML, "true: " + marker + "\n", ClassNonStringKey},
		{"yaml null key", YAML, "~: " + marker + "\n", ClassNonStringKey},
		{"yaml float key", YAML, "1.5: x\n", ClassNonStringKey},
		{"yaml complex key", YAML, "? [a]\n: " + marker + "\n", ClassNonStringKey},
		{"yaml nested non-string key", YAML, "a:\n  2: x\n", ClassNonStringKey},
		{"yaml timestamp", YAML, "a: 2026-01-01T00:00:00Z\n", ClassUnsupportedScalar},
		{"yaml date", YAML, "a: 2026-01-01\n", ClassUnsupportedScalar},
		{"yaml binary", YAML, "a: !!binary aGVsbG8=\n", ClassUnsupportedScalar},
		{"yaml custom tag", YAML, "a: !vault " + marker + "\n", ClassUnsupportedScalar},
		{"yaml set", YAML, "a: !!set {x: null}\n", ClassUnsupportedScalar},
		{"yaml omap", YAML, "a: !!omap [x: 1]\n", ClassUnsupportedScalar},
		{"yaml nan", YAML, "a: .nan\n", ClassNonFiniteNumber},
		{"yaml inf", YAML, "a: .inf\n", ClassNonFiniteNumber},
		{"yaml negative inf in list", YAML, "a: [-.Inf]\n", ClassNonFiniteNumber},
		{"json 1e400", JSON, `{"a":1e400}`, ClassNonFiniteNumber},
		{"json -1e400", JSON, `{"a":-1e400}`, ClassNonFiniteNumber},
		{"json integer beyond 2^53", JSON, `{"a":12345678901234567890}`, ClassNumberPrecision},
		{"json 2^53", JSON, `{"a":9007199254740992}`, ClassNumberPrecision},
		{"yaml 2^53 in hex tagged !!float", YAML, "a: !!float 0x20000000000000\n", ClassNumberPrecision},
		{"yaml -2^53 in hex tagged !!float", YAML, "a: !!float -0x20000000000000\n", ClassNumberPrecision},
		{"json -2^53", JSON, `{"a":-9007199254740992}`, ClassNumberPrecision},
		{"json long decimal", JSON, `{"a":3.14159265358979323846}`, ClassNumberPrecision},
		{"json underflow", JSON, `{"a":1e-400}`, ClassNumberPrecision},
		{"json decimal beyond 2^53", JSON, `{"a":9007199254740993.0}`, ClassNumberPrecision},
		{"json nested big integer", JSON, `{"a":[{"b":99999999999999999}]}`, ClassNumberPrecision},
		{"yaml integer beyond 2^53", YAML, "a: 12345678901234567890\n", ClassNumberPrecision},
		{"yaml huge integer parsed as float", YAML, "a: 123456789012345678901234\n", ClassNumberPrecision},
		{"yaml long decimal", YAML, "a: 3.14159265358979323846\n", ClassNumberPrecision},
		{"yaml hex 2^53", YAML, "a: 0x20000000000000\n", ClassNumberPrecision},
		{"yaml sops-rounded integer", YAML, "a: 12345678901234567000\n", ClassNumberPrecision},
		{"json empty", JSON, "", ClassEmpty},
		{"json whitespace", JSON, " \r\n\t", ClassEmpty},
		{"yaml empty", YAML, "", ClassEmpty},
		{"yaml comment only", YAML, "# " + marker + "\n", ClassEmpty},
		{"yaml bare document marker", YAML, "---\n", ClassEmpty},
		{"dotenv empty", Dotenv, "", ClassEmpty},
		{"dotenv comments and blanks only", Dotenv, "#" + marker + "\n\n\r\n", ClassEmpty},
		{"dotenv line without equals", Dotenv, "A=1\n" + marker + "\n", ClassSyntax},
		{"dotenv indented comment", Dotenv, "  # " + marker + "\n", ClassSyntax},
		{"dotenv empty key", Dotenv, "=" + marker + "\n", ClassSyntax},
		{"json too large", JSON, `{"a":"` + big + `"}`, ClassTooLarge},
		{"yaml too large", YAML, "a: " + big + "\n", ClassTooLarge},
		{"dotenv too large", Dotenv, "A=" + big + "\n", ClassTooLarge},
		{"json too large after escaping", JSON, `{"a":"` + strings.Repeat(`\u0001`, MaxValueBytes/6+1) + `"}`, ClassTooLarge},
		{"json syntax", JSON, `{"a":"` + marker + `",}`, ClassSyntax},
		{"json unterminated", JSON, `{"a":"` + marker + `"`, ClassSyntax},
		{"json trailing garbage", JSON, `{"a":1} ` + marker, ClassSyntax},
		{"json single quotes", JSON, `{'a':1}`, ClassSyntax},
		{"yaml syntax", YAML, "a: [" + marker + "\n", ClassSyntax},
		{"yaml bad int tag", YAML, "a: !!int " + marker + "\n", ClassSyntax},
		{"yaml tab indentation", YAML, "a:\n\tb: " + marker + "\n", ClassSyntax},
		{"json objects 101 deep", JSON, deepJSON(MaxDepth+1, `{"a":"`+marker+`"}`), ClassTooDeep},
		{"json arrays 101 deep", JSON, `{"a":` + strings.Repeat("[", MaxDepth) + `"` + marker + `"` + strings.Repeat("]", MaxDepth) + `}`, ClassTooDeep},
		{"json 10000 deep", JSON, deepJSON(10000, `{"a":"`+marker+`"}`), ClassTooDeep},
		{"yaml flow 101 deep", YAML, "a: " + strings.Repeat("[", MaxDepth) + marker + strings.Repeat("]", MaxDepth) + "\n", ClassTooDeep},
		{"yaml block 101 deep", YAML, deepYAMLBlock(MaxDepth+1, marker), ClassTooDeep},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Canonicalize(c.format, []byte(c.in))
			if err == nil {
				t.Fatalf("accepted as %s; want %s", got, c.class)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not *Error", err)
			}
			if ce.Class != c.class {
				t.Fatalf("class %s, want %s (%v)", ce.Class, c.class, err)
			}
			if !strings.HasPrefix(err.Error(), c.class+": ") || !strings.Contains(err.Error(), "; ") {
				t.Errorf("error text %q lacks the class prefix or the next action", err)
			}
			if strings.Contains(err.Error(), marker) {
				t.Errorf("error text leaks content: %q", err)
			}
		})
		seen[c.class] = true
	}
	if len(cases) < 40 {
		t.Errorf("only %d bad inputs; the issue asks for at least 40", len(cases))
	}
	for _, class := range []string{ClassNotUTF8, ClassBOM, ClassNotObject, ClassDuplicateKey, ClassMultiDocument,
		ClassAnchorOrAlias, ClassNonStringKey, ClassUnsupportedScalar, ClassNonFiniteNumber, ClassNumberPrecision,
		ClassTooLarge, ClassEmpty, ClassSyntax} {
		if !seen[class] {
			t.Errorf("no bad input covers %s", class)
		}
	}
}

func TestSizeLimitIsInclusive(t *testing.T) {
	// {"a":"…"} is 8 bytes of syntax around the string.
	in := `{"a":"` + strings.Repeat("x", MaxValueBytes-8) + `"}`
	out, err := FromJSON([]byte(in))
	if err != nil || len(out) != MaxValueBytes {
		t.Fatalf("a value of exactly %d bytes must pass: len %d, %v", MaxValueBytes, len(out), err)
	}
}

// Unbounded keeps every rule but the size one: a value one byte past the
// limit is canonicalized whole (the plan's gate judges it against the
// target's limit), where FromJSON refuses it as plaintext:too-large.
func TestUnboundedHasNoSizeRule(t *testing.T) {
	in := `{"a":"` + strings.Repeat("x", MaxValueBytes-7) + `"}`
	if _, err := FromJSON([]byte(in)); err == nil {
		t.Fatal("FromJSON must refuse a value one byte past the limit")
	}
	out, err := Unbounded([]byte(in))
	if err != nil || len(out) != MaxValueBytes+1 {
		t.Fatalf("Unbounded: len %d, %v; want the whole %d bytes", len(out), err, MaxValueBytes+1)
	}
	if _, err := Unbounded([]byte(`{"a":1,"a":2}`)); err == nil {
		t.Error("Unbounded must keep the other rules (duplicate member names)")
	}
}

func TestClassTokensAreStable(t *testing.T) {
	got := []string{ClassNotUTF8, ClassBOM, ClassNotObject, ClassDuplicateKey, ClassMultiDocument,
		ClassAnchorOrAlias, ClassNonStringKey, ClassUnsupportedScalar, ClassNonFiniteNumber, ClassNumberPrecision,
		ClassTooLarge, ClassEmpty, ClassSyntax}
	want := []string{"plaintext:not-utf8", "plaintext:bom", "plaintext:not-object", "plaintext:duplicate-key",
		"plaintext:multi-document", "plaintext:anchor-or-alias", "plaintext:non-string-key",
		"plaintext:unsupported-scalar", "plaintext:non-finite-number", "plaintext:number-precision",
		"plaintext:too-large", "plaintext:empty", "plaintext:syntax"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("class token changed: %q, want %q", got[i], want[i])
		}
	}
}

func TestParseDecimal(t *testing.T) {
	eq := [][2]string{{"1", "1.0"}, {"1e2", "100"}, {"-0", "0"}, {"0.000", "0e5"}, {"12.5e-1", "1.25"}, {".5", "0.5"}, {"5.", "5"}, {"+7", "7"}, {"1E+02", "100"}}
	for _, p := range eq {
		a, ok1 := parseDecimal(p[0])
		b, ok2 := parseDecimal(p[1])
		if !ok1 || !ok2 || a != b {
			t.Errorf("%s and %s should be equal decimals: %+v %+v", p[0], p[1], a, b)
		}
	}
	ne := [][2]string{{"1", "-1"}, {"1", "10"}, {"0.1", "0.10000000000000001"}}
	for _, p := range ne {
		a, _ := parseDecimal(p[0])
		b, _ := parseDecimal(p[1])
		if a == b {
			t.Errorf("%s and %s should differ", p[0], p[1])
		}
	}
	for _, bad := range []string{"", "-", ".", "e5", "1e", "1e+", "0x10", "1.2.3", "1e1234567890", "--1", "1_0"} {
		if _, ok := parseDecimal(bad); ok {
			t.Errorf("parseDecimal(%q) should fail", bad)
		}
	}
}

func TestIntegralValuesBeyondSafeRangeAreRefusedWhateverTheSpelling(t *testing.T) {
	for _, lit := range []string{"1e20", "9007199254740992.0", "1.5e300", "-1e16"} {
		if _, err := FromJSON([]byte(`{"a":` + lit + `}`)); !isClass(err, ClassNumberPrecision) {
			t.Errorf("JSON %s: %v, want %s", lit, err, ClassNumberPrecision)
		}
		if _, err := FromYAML([]byte("a: " + lit + "\n")); !isClass(err, ClassNumberPrecision) {
			t.Errorf("YAML %s: %v, want %s", lit, err, ClassNumberPrecision)
		}
	}
	for _, lit := range []string{"1e15", "1.5e-300", "4503599627370495.5", "-9007199254740991.0"} {
		if _, err := FromJSON([]byte(`{"a":` + lit + `}`)); err != nil {
			t.Errorf("JSON %s: %v, want accepted", lit, err)
		}
	}
}

func isClass(err error, class string) bool {
	var ce *Error
	return errors.As(err, &ce) && ce.Class == class
}

// deepJSON nests inner in depth-1 objects ({"a":...}).
func deepJSON(depth int, inner string) string {
	return strings.Repeat(`{"a":`, depth-1) + inner + strings.Repeat("}", depth-1)
}

// deepYAMLBlock is a block mapping nested depth levels deep.
func deepYAMLBlock(depth int, leaf string) string {
	var b strings.Builder
	for i := 0; i < depth-1; i++ {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat(" ", depth-1) + "a: " + leaf + "\n")
	return b.String()
}

// TestNestingDepthLimit: exactly MaxDepth levels is accepted in JSON and
// YAML, and gives the same canonical value.
func TestNestingDepthLimit(t *testing.T) {
	j, err := Canonicalize(JSON, []byte(deepJSON(MaxDepth, `{"a":"x"}`)))
	if err != nil {
		t.Fatal(err)
	}
	y, err := Canonicalize(YAML, []byte(deepYAMLBlock(MaxDepth, "x")))
	if err != nil || string(y) != string(j) {
		t.Fatalf("yaml: %v", err)
	}
	if TooDeep().Class != ClassTooDeep {
		t.Fatal("TooDeep")
	}
}
