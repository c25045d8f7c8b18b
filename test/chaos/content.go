package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
)

// CanaryMarker starts every plaintext string and every key the generator
// writes; it appears nowhere else (not in names, paths, prefixes or
// repository ids), so any occurrence in an output is a leak.
const CanaryMarker = "cnry"

// object is a JSON object with a chosen member order; values are string,
// int64, float64 (written from a fixed spelling), bool, nil, *object or
// []any.
type object struct {
	keys []string
	vals map[string]any
}

// number is a float written with an exact spelling (e.g. "1.0", "12.5").
type number string

func canary(r *rand.Rand) string {
	return fmt.Sprintf("%s%016x", CanaryMarker, r.Uint64())
}

func canaryKey(r *rand.Rand) string {
	return fmt.Sprintf("k%s%08x", CanaryMarker, r.Uint32())
}

// decorate sometimes adds characters that need escaping or are not ASCII,
// keeping the canary itself intact.
func decorate(r *rand.Rand, s string) string {
	switch r.IntN(8) {
	case 0:
		return s + " \"quoted\" \\ back"
	case 1:
		return s + "\nsecond line\ttab"
	case 2:
		return s + "-é-✓-日本"
	case 3:
		return "  " + s + "  "
	}
	return s
}

var numbers = []number{"0.5", "-3.75", "12345.5", "1.0", "100", "-0.25", "9007199254740991"}

// newObject returns a random object; flat objects hold only plain canary
// strings (valid as dotenv).
func newObject(r *rand.Rand, flat bool, depth int) *object {
	o := &object{vals: map[string]any{}}
	n := 1 + r.IntN(4)
	for range n {
		k := canaryKey(r)
		if _, dup := o.vals[k]; dup {
			continue
		}
		o.keys = append(o.keys, k)
		if flat {
			o.vals[k] = canary(r)
			continue
		}
		switch x := r.IntN(10); {
		case x < 4:
			o.vals[k] = decorate(r, canary(r))
		case x == 4:
			o.vals[k] = int64(r.Int32()) - 1<<30
		case x == 5:
			o.vals[k] = numbers[r.IntN(len(numbers))]
		case x == 6:
			o.vals[k] = r.IntN(2) == 0
		case x == 7:
			o.vals[k] = nil
		case x == 8 && depth < 2:
			o.vals[k] = newObject(r, false, depth+1)
		default:
			o.vals[k] = []any{canary(r), int64(r.IntN(1000))}
		}
	}
	return o
}

// isFlat reports whether o is valid dotenv content (only single-line plain
// strings).
func (o *object) isFlat() bool {
	for _, v := range o.vals {
		s, ok := v.(string)
		if !ok || strings.ContainsAny(s, "\n\r\"'\\ #=") {
			return false
		}
	}
	return true
}

// shuffled returns a copy of o with another member order (recursively).
func (o *object) shuffled(r *rand.Rand) *object {
	c := &object{keys: append([]string(nil), o.keys...), vals: map[string]any{}}
	r.Shuffle(len(c.keys), func(i, j int) { c.keys[i], c.keys[j] = c.keys[j], c.keys[i] })
	// In key order, not map order: nested objects draw from r, and a map's
	// order would make the same seed give another scenario.
	for _, k := range o.keys {
		v := o.vals[k]
		if sub, ok := v.(*object); ok {
			v = sub.shuffled(r)
		}
		c.vals[k] = v
	}
	return c
}

// mutated returns a copy of o with one member changed or added.
func (o *object) mutated(r *rand.Rand, flat bool) *object {
	c := o.shuffled(r)
	if len(c.keys) > 0 && r.IntN(3) > 0 {
		k := c.keys[r.IntN(len(c.keys))]
		c.vals[k] = canary(r)
		return c
	}
	k := canaryKey(r)
	c.keys = append(c.keys, k)
	c.vals[k] = canary(r)
	return c
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return jsonString(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	panic(fmt.Sprintf("chaos: not a scalar: %T", v))
}

// renderJSON writes o as JSON, compact or indented.
func renderJSON(o *object, indent bool) []byte {
	var b strings.Builder
	writeJSON(&b, o, indent, "")
	b.WriteString("\n")
	return []byte(b.String())
}

func writeJSON(b *strings.Builder, v any, indent bool, pad string) {
	nl, in, sep := "", "", ":"
	if indent {
		nl, in, sep = "\n", pad+"  ", ": "
	}
	switch x := v.(type) {
	case *object:
		b.WriteString("{" + nl)
		for i, k := range x.keys {
			b.WriteString(in + jsonString(k) + sep)
			writeJSON(b, x.vals[k], indent, in)
			if i < len(x.keys)-1 {
				b.WriteString(",")
			}
			b.WriteString(nl)
		}
		b.WriteString(pad + "}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, e, false, "")
		}
		b.WriteString("]")
	default:
		b.WriteString(scalar(x))
	}
}

// renderYAML writes o as a block mapping; strings are double-quoted (JSON
// escapes are valid YAML double-quoted escapes) or, when plainStrings and
// safe, plain; arrays are flow sequences.
func renderYAML(o *object, plainStrings bool) []byte {
	var b strings.Builder
	writeYAML(&b, o, "", plainStrings)
	return []byte(b.String())
}

func writeYAML(b *strings.Builder, o *object, pad string, plain bool) {
	for _, k := range o.keys {
		b.WriteString(pad + k + ":")
		switch x := o.vals[k].(type) {
		case *object:
			b.WriteString("\n")
			writeYAML(b, x, pad+"  ", plain)
		case []any:
			b.WriteString(" [")
			for i, e := range x {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(scalar(e))
			}
			b.WriteString("]\n")
		case string:
			if plain && strings.HasPrefix(x, CanaryMarker) && !strings.ContainsAny(x, " \n\t\"\\:#-é✓日") {
				b.WriteString(" " + x + "\n")
			} else {
				b.WriteString(" " + jsonString(x) + "\n")
			}
		default:
			b.WriteString(" " + scalar(x) + "\n")
		}
	}
}

// renderEnv writes a flat o as dotenv lines.
func renderEnv(o *object) []byte {
	var b strings.Builder
	for _, k := range o.keys {
		b.WriteString(k + "=" + o.vals[k].(string) + "\n")
	}
	return []byte(b.String())
}

// suffixes of each format (SPEC §3.1).
var suffixes = map[canonical.Format][]string{
	canonical.JSON:   {".sops.json"},
	canonical.YAML:   {".sops.yaml", ".sops.yml"},
	canonical.Dotenv: {".sops.env"},
}

// makeDoc renders o at stem (path without suffix) in format f and computes
// its canonical value.
func makeDoc(r *rand.Rand, stem string, f canonical.Format, o *object) (Doc, error) {
	var plain []byte
	switch f {
	case canonical.JSON:
		plain = renderJSON(o, r.IntN(2) == 0)
	case canonical.YAML:
		plain = renderYAML(o, r.IntN(2) == 0)
	case canonical.Dotenv:
		plain = renderEnv(o)
	}
	sufs := suffixes[f]
	d := Doc{Path: stem + sufs[r.IntN(len(sufs))], Format: f, Plain: plain}
	c, err := canonical.Canonicalize(f, plain)
	if err != nil {
		return Doc{}, fmt.Errorf("generated %s document does not canonicalize: %w", f, err)
	}
	d.Canon = c
	return d, nil
}
