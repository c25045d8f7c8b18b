package core

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Decode decodes a request body into an operation's input shape v (a
// pointer to a struct); an empty body is {}. Anything else that is not a
// JSON object of v's members is a SerializationException.
//
// An input shape's fields are named as the service model names its
// members, without json tags: encoding/json matches a member to the field
// of the same name, case-insensitively (KmsKeyId fills KmsKeyID), which is
// what a tag repeating the name would do. Output shapes keep their tags
// (the exact member name, omitempty).
func Decode(body []byte, v any) *Error {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return Errf("SerializationException", "the request body is not a valid JSON object for this operation")
	}
	return nil
}

// Handler answers one operation of a service: C is the service's view of
// the request (its account, Region and state), body the request body. It
// returns the output shape, or the error answer.
type Handler[C any] func(c C, body []byte) (any, *Error)

// Op makes the Handler of an operation from a function of its decoded
// input shape T.
func Op[C, T any](f func(C, *T) (any, *Error)) Handler[C] {
	return func(c C, body []byte) (any, *Error) {
		in := new(T)
		if err := Decode(body, in); err != nil {
			return nil, err
		}
		return f(c, in)
	}
}

// SigScope is the SigV4 credential scope of a request: the access key id,
// the Region and the service it was signed for.
type SigScope struct {
	AccessKey, Region, Service string
}

// ParseSigScope reads the credential scope from the Authorization header
// (AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/SERVICE/aws4_request) or a
// presigned URL's X-Amz-Credential (AWS Signature Version 4 documentation,
// "Credential scope"). ok is false when the request carries none or it is
// malformed. Signatures are not checked.
func ParseSigScope(r *http.Request) (SigScope, bool) {
	cred := r.URL.Query().Get("X-Amz-Credential")
	if a := r.Header.Get("Authorization"); a != "" {
		i := strings.Index(a, "Credential=")
		if i < 0 {
			return SigScope{}, false
		}
		cred = a[i+len("Credential="):]
		if j := strings.IndexAny(cred, ", "); j >= 0 {
			cred = cred[:j]
		}
	}
	f := strings.Split(cred, "/")
	if len(f) != 5 || f[0] == "" || f[4] != "aws4_request" {
		return SigScope{}, false
	}
	return SigScope{AccessKey: f[0], Region: f[2], Service: f[3]}, true
}

// SDKAttempt is the attempt number an AWS SDK put in its Amz-Sdk-Request
// header ("attempt=2; max=3": the SDK's second try of one call); 1 when the
// header is absent or unreadable. aws-sdk-go-v2 sets it in its retry
// middleware (aws/retry), as the other AWS SDKs do.
func SDKAttempt(h http.Header) int {
	for part := range strings.SplitSeq(h.Get("Amz-Sdk-Request"), ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "attempt="); ok {
			if n, err := strconv.Atoi(v); err == nil && n > 1 {
				return n
			}
		}
	}
	return 1
}
