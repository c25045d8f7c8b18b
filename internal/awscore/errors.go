package awscore

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
)

// Our own codes for failures that carry no service answer.
const (
	CodeTimeout          = "Timeout"
	CodeConnection       = "ConnectionError"
	CodeClientValidation = "ClientValidation"
	CodeUnknown          = "UnknownError"
)

// Codes says how one service's error codes read (ConvertError): the codes
// that may be reported verbatim (any other is CodeUnknown, so a hostile
// or broken endpoint cannot inject text), the one that means the resource
// is not there, and the one that means a create met an existing name.
type Codes struct {
	Known            map[string]bool
	NotFound, Exists string
	// Refused are the service's codes of a request refused before it was
	// executed, for a reason that passes like a throttle: ConvertError
	// marks them Throttled (never ambiguous, safe to resend after a new
	// turn) and keeps the code. Parameter Store's TooManyUpdates (a
	// concurrent update of one parameter; SSM API reference, PutParameter
	// errors).
	Refused map[string]bool
}

// ConvertError reduces an SDK error to the Port's error contract (SPEC
// §7.3): a known code verbatim, any other "UnknownError"; a server fault,
// a timeout or a lost connection ambiguous; a throttle never ambiguous.
// parent is the run's context: when it is done the run was cancelled and
// its error is returned as is. Every adapter converts through it.
func ConvertError(parent context.Context, op string, err error, codes Codes) error {
	if err == nil {
		return nil
	}
	if parent.Err() != nil {
		return parent.Err()
	}
	e := &engine.Error{Operation: op}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		e.RequestID = re.ServiceRequestID()
	}
	var api smithy.APIError
	var params smithy.InvalidParamsError
	switch {
	case errors.As(err, &api):
		e.Code = api.ErrorCode()
		if !codes.Known[e.Code] {
			e.Code = CodeUnknown
		}
		e.Fault = engine.FaultClient
		var sre *smithyhttp.ResponseError
		if api.ErrorFault() == smithy.FaultServer || (errors.As(err, &sre) && sre.HTTPStatusCode() >= 500) {
			e.Fault = engine.FaultServer
			// A server fault may have happened after the write landed.
			e.Ambiguous = true
		}
		if throttleCodes[api.ErrorCode()] {
			// A throttled request was not executed (AWS API reference):
			// never ambiguous, safe to resend for every operation.
			e.Code, e.Fault, e.Ambiguous, e.Throttled = "ThrottlingException", engine.FaultClient, false, true
		} else if codes.Refused[e.Code] {
			// Refused before it was executed: resent as a throttle is.
			e.Fault, e.Ambiguous, e.Throttled = engine.FaultClient, false, true
		}
		e.NotFound = e.Code == codes.NotFound
		e.Exists = e.Code == codes.Exists
		e.AccessDenied = e.Code == "AccessDeniedException"
	case errors.As(err, &params):
		e.Code, e.Fault = CodeClientValidation, engine.FaultClient
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		// The per-call timeout fired in our client (the parent is still
		// alive): a client fault (SPEC §7.3), ambiguous for a write.
		e.Code, e.Fault, e.Ambiguous = CodeTimeout, engine.FaultClient, true
	default:
		// No answer: connection refused, reset or closed. The request may
		// have been applied.
		e.Code, e.Fault, e.Ambiguous = CodeConnection, engine.FaultServer, true
	}
	return e
}

// IsCode reports whether err is a converted error (ConvertError) of code.
func IsCode(err error, code string) bool {
	var e *engine.Error
	return errors.As(err, &e) && e.Code == code
}

// throttleCodes are the error codes that mean "rate exceeded, not
// executed": Secrets Manager's ThrottlingException and the generic codes
// the SDK also treats as throttles (aws/retry DefaultThrottleErrorCodes).
// LimitExceededException is not one of them: in Secrets Manager it is a
// resource quota (too many secrets, versions), not a request rate.
var throttleCodes = map[string]bool{
	"ThrottlingException": true, "Throttling": true, "ThrottledException": true,
	"RequestThrottledException": true, "TooManyRequestsException": true,
	"RequestLimitExceeded": true, "RequestThrottled": true, "SlowDown": true,
}

// IsThrottled reports whether err is a converted throttle (ConvertError).
func IsThrottled(err error) bool {
	var e *engine.Error
	return errors.As(err, &e) && e.Throttled
}

// IsAnswer reports whether the service answered err (with an error other
// than a throttle), so the quota admitted the request: a converted error
// with a request id, or with a code that only an answer carries.
func IsAnswer(err error) bool {
	var e *engine.Error
	if !errors.As(err, &e) || e.Throttled {
		return false
	}
	return e.RequestID != "" || (e.Code != CodeTimeout && e.Code != CodeConnection && e.Code != CodeClientValidation)
}

// NoThrottleRetry makes r treat throttling errors as not retryable, so they
// reach the adapter (reads) or the engine (writes) at once instead of
// spending the SDK's attempts and retry budget (nil stays nil; a wrapped
// retryer is not wrapped again).
func NoThrottleRetry(r aws.Retryer) aws.Retryer {
	if r == nil {
		return nil
	}
	if _, ok := r.(throttleless); ok {
		return r
	}
	v2, ok := r.(aws.RetryerV2)
	if !ok {
		v2 = v1Retryer{r}
	}
	return throttleless{v2}
}

type throttleless struct{ aws.RetryerV2 }

func (t throttleless) IsErrorRetryable(err error) bool {
	var api interface{ ErrorCode() string }
	if errors.As(err, &api) && throttleCodes[api.ErrorCode()] {
		return false
	}
	return t.RetryerV2.IsErrorRetryable(err)
}

// v1Retryer lifts an aws.Retryer without GetAttemptToken to RetryerV2.
type v1Retryer struct{ aws.Retryer }

func (v v1Retryer) GetAttemptToken(context.Context) (func(error) error, error) {
	return v.GetInitialToken(), nil
}
