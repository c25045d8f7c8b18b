package core

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// The awsJson1_1 protocol (Secrets Manager and Systems Manager service
// models; reference §7 of shared/reference/aws-secrets-manager.md): a POST
// whose X-Amz-Target names "<service prefix>.<Operation>" and whose body is
// a JSON object of the operation's input members; the answer is a JSON
// object of its output members, an error a JSON object with __type and
// Message.

// AmzJSON is the Content-Type of an awsJson1_1 answer.
const AmzJSON = "application/x-amz-json-1.1"

// MaxBody caps a request body in bytes: a 65,536-byte binary secret is
// about 87 KiB in base64.
const MaxBody = 1 << 20

// Epoch is a timestamp as epoch seconds with millisecond precision, encoded
// as a plain JSON number (reference §7.5: a quoted string fails the SDK's
// decoder). encoding/json writes such floats without an exponent.
type Epoch float64

// Ep is t as an Epoch, nil for the zero time (an output member without a
// value is left out).
func Ep(t time.Time) *Epoch {
	if t.IsZero() {
		return nil
	}
	e := Epoch(float64(t.UnixMilli()) / 1000)
	return &e
}

// Tag is a tag of a request (Secrets Manager's and Systems Manager's Tag
// shape alike): both members optional on the wire, so nil is "absent".
type Tag struct {
	Key   *string `json:"Key"`
	Value *string `json:"Value"`
}

// TagOut is a tag of an answer.
type TagOut struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// Error is an error answer: HTTP Status, error Code (the body's __type)
// and Message.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Messages both JSON services answer with.
const (
	MsgRateExceeded = "Rate exceeded"
	MsgInternal     = "An error occurred on the server side."
)

// Errf is the error answer code with the formatted message: HTTP 500 for
// the services' internal-error codes (Secrets Manager's
// InternalServiceError, Systems Manager's InternalServerError,
// Organizations' ServiceException), else 400.
func Errf(code, format string, args ...any) *Error {
	status := http.StatusBadRequest
	if code == "InternalServiceError" || code == "InternalServerError" || code == "ServiceException" {
		status = http.StatusInternalServerError
	}
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrConstraint is the service model's validation answer
// (ValidationException in the Coral "1 validation error detected" form)
// [unverified wording].
func ErrConstraint(member, constraint string) *Error {
	return Errf("ValidationException", "1 validation error detected: Value at '%s' failed to satisfy constraint: %s", member, constraint)
}

// ErrMissing answers a required member left out.
func ErrMissing(member string) *Error {
	return Errf("ValidationException", "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", member)
}

// ErrTooLong answers a member longer than max characters.
func ErrTooLong(member string, max int) *Error {
	return ErrConstraint(member, fmt.Sprintf("Member must have length less than or equal to %d", max))
}

// ErrTooShort answers a member shorter than min characters.
func ErrTooShort(member string, min int) *Error {
	return ErrConstraint(member, fmt.Sprintf("Member must have length greater than or equal to %d", min))
}

// ErrEnum answers a member whose value is not one of set.
func ErrEnum(member, value string, set []string) *Error {
	return Errf("ValidationException", "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]", value, member, strings.Join(set, ", "))
}

// EncodeError is the body of an error answer.
func EncodeError(e *Error) []byte {
	b, _ := json.Marshal(struct {
		Type    string `json:"__type"`
		Message string `json:"Message"`
	}{e.Code, e.Message})
	return b
}

// WriteError writes the error answer e.
func WriteError(w http.ResponseWriter, e *Error) {
	WriteAPI(w, e.Status, EncodeError(e))
}

// WriteAPI writes an answer: its Content-Type, a request id, status and
// body.
func WriteAPI(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", AmzJSON)
	h.Set("X-Amzn-Requestid", NewRequestID())
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

var requestCounter atomic.Uint64

// NewRequestID is a UUID-shaped request id from a process-wide counter.
func NewRequestID() string {
	n := requestCounter.Add(1)
	return fmt.Sprintf("e0000000-0000-4000-8000-%012x", n&0xffffffffffff)
}

// Abort closes the connection without an HTTP response, so the client
// cannot tell whether the request was applied.
func Abort(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
