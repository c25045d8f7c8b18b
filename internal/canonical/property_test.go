package canonical

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	"pgregory.net/rapid"
)

// genValue draws a JSON-compatible value that the rules accept: strings,
// booleans, null, safe integers, finite floats that are not integral beyond
// ±(2^53−1), and nested objects and arrays.
func genValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		max := 6
		if depth <= 0 {
			max = 4
		}
		switch rapid.IntRange(0, max).Draw(t, "kind") {
		case 0:
			return rapid.String().Draw(t, "s")
		case 1:
			return rapid.Bool().Draw(t, "b")
		case 2:
			return nil
		case 3:
			return rapid.Int64Range(-MaxSafeInteger, MaxSafeInteger).Draw(t, "i")
		case 4:
			return rapid.Float64().Filter(func(f float64) bool {
				return !math.IsInf(f, 0) && !math.IsNaN(f) && !(f == math.Trunc(f) && math.Abs(f) > MaxSafeInteger)
			}).Draw(t, "f")
		case 5:
			return genObject(depth-1).Draw(t, "o")
		default:
			return rapid.SliceOfN(genValue(depth-1), 0, 4).Draw(t, "a")
		}
	})
}

func genObject(depth int) *rapid.Generator[map[string]any] {
	return rapid.MapOfN(rapid.String(), genValue(depth), 0, 5)
}

// Equal content in JSON and YAML canonicalizes to identical bytes, and the
// result is a fixed point (SPEC §3.3: re-encoding a file never churns).
func TestPropertyJSONAndYAMLAgreeAndCanonicalIsFixedPoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		obj := genObject(2).Draw(t, "obj")
		j, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		y, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		cj, err := FromJSON(j)
		if err != nil {
			t.Fatalf("JSON %s: %v", j, err)
		}
		if !yamlRoundTrips(obj, y) {
			// yaml.v3's emitter does not round-trip a few exotic strings
			// (for example a key that is only "\n"); that is the emitter's
			// problem, not a property of the canonicalizer.
			t.Skip("yaml.v3 emitter does not round-trip this object")
		}
		cy, err := FromYAML(y)
		if err != nil {
			t.Fatalf("YAML %q: %v", y, err)
		}
		if string(cj) != string(cy) {
			t.Fatalf("JSON and YAML disagree:\n%s\n%s", cj, cy)
		}
		again, err := FromJSON(cj)
		if err != nil || string(again) != string(cj) {
			t.Fatalf("not a fixed point: %s -> %s, %v", cj, again, err)
		}
		// The canonical value means the same as the input.
		var back any
		if err := json.Unmarshal(cj, &back); err != nil {
			t.Fatal(err)
		}
		var want any
		_ = json.Unmarshal(j, &want)
		wb, _ := json.Marshal(want)
		bb, _ := json.Marshal(back)
		if string(wb) != string(bb) {
			t.Fatalf("content changed:\n%s\n%s", wb, bb)
		}
	})
}

// A dotenv document and a JSON object of the same strings canonicalize
// identically.
func TestPropertyDotenvMatchesJSONObjectOfStrings(t *testing.T) {
	key := rapid.StringMatching(`[A-Za-z_][A-Za-z0-9_.]{0,20}`)
	val := rapid.String().Filter(func(s string) bool {
		return !strings.ContainsAny(s, "\\\r")
	})
	rapid.Check(t, func(t *rapid.T) {
		m := rapid.MapOfN(key, val, 1, 8).Draw(t, "env")
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			if rapid.Bool().Draw(t, "comment") {
				b.WriteString("# note\n\n")
			}
			eol := "\n"
			if rapid.Bool().Draw(t, "crlf") {
				eol = "\r\n"
			}
			b.WriteString(k + "=" + strings.ReplaceAll(m[k], "\n", `\n`) + eol)
		}
		cd, err := FromDotenv([]byte(b.String()))
		if err != nil {
			t.Fatalf("dotenv %q: %v", b.String(), err)
		}
		j, _ := json.Marshal(m)
		cj, err := FromJSON(j)
		if err != nil {
			t.Fatal(err)
		}
		if string(cd) != string(cj) {
			t.Fatalf("dotenv and JSON disagree:\n%s\n%s", cd, cj)
		}
	})
}

func yamlRoundTrips(obj map[string]any, y []byte) bool {
	var back map[string]any
	if err := yaml.Unmarshal(y, &back); err != nil {
		return false
	}
	a, err1 := json.Marshal(obj)
	b, err2 := json.Marshal(back)
	return err1 == nil && err2 == nil && string(a) == string(b)
}
