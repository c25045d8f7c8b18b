package wirefile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type inner struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sample struct {
	Name  string            `json:"name"`
	Inner inner             `json:"inner"`
	List  []inner           `json:"list"`
	Opt   *inner            `json:"opt,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
}

const good = `{"name":"x","inner":{"a":1,"b":2},"list":[{"a":1,"b":2}],"tags":{"k":"v"}}`

func TestDecodeAcceptsTheExactShape(t *testing.T) {
	var s sample
	require.NoError(t, Decode([]byte(good), &s))
	assert.Equal(t, sample{Name: "x", Inner: inner{1, 2}, List: []inner{{1, 2}}, Tags: map[string]string{"k": "v"}}, s)
}

// TestDecodeRefuses: every departure from the exact shape is a
// *DecodeError whose reason quotes nothing of the data. encoding/json alone
// accepts the duplicate key (last one wins), the case variants and the
// invalid UTF-8 (replaced by U+FFFD).
func TestDecodeRefuses(t *testing.T) {
	for name, c := range map[string]struct{ data, reason string }{
		"duplicate top-level key": {`{"name":"CANARY","name":"x","inner":{"a":1,"b":2},"list":[]}`, "twice"},
		"duplicate nested key":    {`{"name":"x","inner":{"a":1,"b":2,"b":3},"list":[]}`, "twice"},
		"duplicate key in a list": {`{"name":"x","inner":{"a":1,"b":2},"list":[{"a":1,"a":1,"b":2}]}`, "twice"},
		"duplicate map key":       {`{"name":"x","inner":{"a":1,"b":2},"list":[],"tags":{"k":"v","k":"w"}}`, "twice"},
		"escaped duplicate":       {`{"name":"x","n\u0061me":"y","inner":{"a":1,"b":2},"list":[]}`, "twice"},
		"case variant":            {`{"Name":"x","inner":{"a":1,"b":2},"list":[]}`, "schema's name only in letter case"},
		"case variant nested":     {`{"name":"x","inner":{"A":1,"b":2},"list":[]}`, "letter case"},
		"escaped case variant":    {`{"n\u0041me":"x","inner":{"a":1,"b":2},"list":[]}`, "letter case"},
		"unknown key":             {`{"name":"x","inner":{"a":1,"b":2},"list":[],"CANARY":1}`, "not in the schema"},
		"missing key":             {`{"name":"x","list":[]}`, "missing key inner"},
		"null":                    {`{"name":null,"inner":{"a":1,"b":2},"list":[]}`, "null"},
		"null optional":           {`{"name":"x","inner":{"a":1,"b":2},"list":[],"opt":null}`, "null"},
		"invalid UTF-8":           {"{\"name\":\"\xff\",\"inner\":{\"a\":1,\"b\":2},\"list\":[]}", "UTF-8"},
		"trailing data":           {good + `{}`, "trailing"},
		"trailing garbage":        {good + `x`, "trailing"},
		"not an object":           {`["CANARY"]`, "not a JSON object"},
		"empty":                   {``, "not a JSON object"},
		"truncated":               {`{"name":"x"`, "not valid JSON"},
		"wrong type":              {`{"name":1,"inner":{"a":1,"b":2},"list":[]}`, "wrong JSON type"},
		"too deep":                {`{"tags":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "nested too deeply"},
	} {
		t.Run(name, func(t *testing.T) {
			var s sample
			err := Decode([]byte(c.data), &s)
			var de *DecodeError
			require.ErrorAs(t, err, &de)
			assert.Contains(t, de.Reason, c.reason)
			assert.NotContains(t, de.Reason, "CANARY")
		})
	}
}

// TestCheckWithoutSchema: Check refuses duplicates, null and invalid UTF-8
// at any depth without knowing the type, and accepts any other object.
func TestCheckWithoutSchema(t *testing.T) {
	require.NoError(t, Check([]byte(`{"x":[1,{"y":"z"}],"X":true}`)))
	assert.Error(t, Check([]byte(`{"x":[1,{"y":"z","y":"z"}]}`)))
	assert.Error(t, Check([]byte(`{"x":[null]}`)))
	assert.Error(t, Check([]byte("{\"x\":\"\xc3\"}")))
}

// FuzzDecode: Decode never panics, and whatever it accepts encoding/json
// decodes to the same value and re-encodes to data Decode accepts again.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(`{"name":"x","name":"y"}`))
	f.Add([]byte(`{"Name":"x","inner":{"a":1,"b":2},"list":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s sample
		if Decode(data, &s) != nil {
			return
		}
		var plain sample
		require.NoError(t, json.Unmarshal(data, &plain))
		assert.Equal(t, plain, s)
		again, err := json.Marshal(s)
		require.NoError(t, err)
		var s2 sample
		require.NoError(t, Decode(again, &s2), "%s", again)
	})
}

// TestNestingLimitIsExact: the root object is level 1; maxDepth levels of
// arrays or of objects are accepted and one more is refused. Siblings do
// not add up: depth is nesting, not size.
func TestNestingLimitIsExact(t *testing.T) {
	chain := func(levels int) string { // levels−1 nested arrays, as a value
		return strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1)
	}
	objects := func(levels int) string {
		return strings.Repeat(`{"x":`, levels-1) + `{}` + strings.Repeat(`}`, levels-1)
	}
	for name, data := range map[string]string{
		"arrays":  `{"x":` + chain(maxDepth) + `}`,
		"objects": objects(maxDepth),
		"siblings, then a chain to the limit": `{"a":[` + strings.Repeat(`[],{},`, 2*maxDepth) + `[]],` +
			`"b":{"o":[` + strings.Repeat(`{},`, 2*maxDepth) + `{}]},` +
			`"c":` + chain(maxDepth) + `}`,
	} {
		require.NoError(t, Check([]byte(data)), name)
	}
	for name, data := range map[string]string{
		"arrays":  `{"x":` + chain(maxDepth+1) + `}`,
		"objects": objects(maxDepth + 1),
	} {
		var de *DecodeError
		require.ErrorAs(t, Check([]byte(data)), &de, name)
		assert.Contains(t, de.Reason, "nested too deeply", name)
	}
}

// TestDashTagSkipsAField: as in encoding/json, a field tagged "-" is not
// part of the schema (never required, and a key "-" is unknown), while a
// tag "-" with options names the JSON key "-".
func TestDashTagSkipsAField(t *testing.T) {
	type skipped struct {
		Skipped int `json:"-"`
		Name    int `json:"name"`
	}
	var s skipped
	require.NoError(t, Decode([]byte(`{"name":1}`), &s))
	var de *DecodeError
	require.ErrorAs(t, Decode([]byte(`{"name":1,"-":2}`), &s), &de)
	assert.Contains(t, de.Reason, "not in the schema")

	type dash struct {
		Dash int `json:"-,omitempty"`
	}
	var d dash
	require.NoError(t, Decode([]byte(`{"-":1}`), &d))
	assert.Equal(t, dash{Dash: 1}, d)
}

// TestRegression_DashCommaTagIsFieldNamedDash: a tag "-," (a comma and no
// option) names the JSON key "-" in encoding/json, as "-,omitempty" does;
// it was taken for "-" and the field skipped, so a key "-" was refused as
// not in the schema and a missing one was not noticed. The schema must
// agree with what encoding/json writes for the same type.
func TestRegression_DashCommaTagIsFieldNamedDash(t *testing.T) {
	type dashComma struct {
		Dash int    `json:"-,"`
		Name string `json:"name"`
	}
	written, err := json.Marshal(dashComma{Dash: 7, Name: "n"})
	require.NoError(t, err)
	require.JSONEq(t, `{"-":7,"name":"n"}`, string(written), "encoding/json names the field \"-\"")

	var d dashComma
	require.NoError(t, Decode(written, &d))
	assert.Equal(t, dashComma{Dash: 7, Name: "n"}, d)

	var de *DecodeError
	require.ErrorAs(t, Decode([]byte(`{"name":"n"}`), &d), &de, "the field has no omitempty: it is required")
	assert.Equal(t, "missing key -", de.Reason)
}

// TestDecodeHoldsAMapsValuesToTheirType: a map's values are decoded
// with the map's element type, as strictly as struct fields: a field name
// in another case or an unknown field inside a map[string]struct value is
// refused (encoding/json alone accepts both), a number where
// map[string]string wants a string too.
func TestDecodeHoldsAMapsValuesToTheirType(t *testing.T) {
	type withMap struct {
		M map[string]inner `json:"m"`
	}
	var w withMap
	require.NoError(t, Decode([]byte(`{"m":{"k":{"a":1,"b":2}}}`), &w))
	assert.Equal(t, inner{1, 2}, w.M["k"])
	var de *DecodeError
	for _, data := range []string{`{"m":{"k":{"A":1,"b":2}}}`, `{"m":{"k":{"a":1,"b":2,"c":3}}}`} {
		var w withMap
		assert.ErrorAs(t, Decode([]byte(data), &w), &de, data)
	}
	var s sample
	assert.ErrorAs(t, Decode([]byte(`{"name":"x","inner":{"a":1,"b":2},"list":[],"tags":{"k":1}}`), &s), &de)
}
