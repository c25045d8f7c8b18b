package core

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Fuzz targets of request decoding: the credential scope, the SDK attempt
// and an operation's body. None may panic; what they accept is well formed.

func FuzzParseSigScope(f *testing.F) {
	f.Add("AWS4-HMAC-SHA256 Credential=AKID/20260101/eu-west-1/secretsmanager/aws4_request, SignedHeaders=host, Signature=00", "")
	f.Add("", "AKID/20260101/us-east-1/sts/aws4_request")
	f.Add("Credential=/a/b/c/aws4_request", "")
	f.Fuzz(func(t *testing.T, auth, presigned string) {
		r, err := http.NewRequest(http.MethodPost, "http://x/?X-Amz-Credential="+url.QueryEscape(presigned), nil)
		if err != nil {
			t.Skip()
		}
		r.Header.Set("Authorization", auth)
		sc, ok := ParseSigScope(r)
		if !ok {
			return
		}
		if sc.AccessKey == "" || strings.Contains(sc.AccessKey+sc.Region+sc.Service, "/") {
			t.Fatalf("scope %+v from %q %q", sc, auth, presigned)
		}
	})
}

func FuzzSDKAttempt(f *testing.F) {
	f.Add("attempt=2; max=3")
	f.Add("attempt=1")
	f.Add("max=3;attempt=-4")
	f.Fuzz(func(t *testing.T, header string) {
		h := http.Header{}
		h.Set("Amz-Sdk-Request", header)
		if n := SDKAttempt(h); n < 1 {
			t.Fatalf("attempt %d from %q", n, header)
		}
	})
}

// fuzzIn is an input shape with the kinds of members the services declare.
type fuzzIn struct {
	Name       *string  `json:"Name"`
	Tags       []Tag    `json:"Tags"`
	MaxResults *int64   `json:"MaxResults"`
	Force      *bool    `json:"Force"`
	Binary     []byte   `json:"Binary"`
	Names      []string `json:"Names"`
}

// FuzzOp feeds arbitrary bodies to an operation's decoding: it answers
// either the handler's output or a SerializationException (HTTP 400), and
// the handler sees exactly what encoding/json decodes.
func FuzzOp(f *testing.F) {
	f.Add([]byte(`{"Name":"a","Tags":[{"Key":"k","Value":"v"}],"MaxResults":3}`))
	f.Add([]byte(``))
	f.Add([]byte(`  `))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"MaxResults":1e99}`))
	f.Add([]byte(`{"Binary":"AAEC"}`))
	h := Op(func(_ struct{}, in *fuzzIn) (any, *Error) { return in, nil })
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := h(struct{}{}, body)
		if err != nil {
			if err.Status != http.StatusBadRequest || err.Code != "SerializationException" {
				t.Fatalf("%q: error %v", body, err)
			}
			var m map[string]any
			if json.Unmarshal(EncodeError(err), &m) != nil || m["__type"] != "SerializationException" {
				t.Fatalf("%q: error body %s", body, EncodeError(err))
			}
			return
		}
		got, jerr := json.Marshal(out)
		if jerr != nil {
			t.Fatal(jerr)
		}
		if len(bytes.TrimSpace(body)) == 0 && string(got) != `{"Name":null,"Tags":null,"MaxResults":null,"Force":null,"Binary":null,"Names":null}` {
			t.Fatalf("empty body decoded as %s", got)
		}
	})
}
