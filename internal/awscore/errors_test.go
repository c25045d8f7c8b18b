package awscore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
)

// testCodes are a service's codes as an adapter declares them.
var testCodes = awscore.Codes{
	Known: map[string]bool{"InvalidRequestException": true, "AccessDeniedException": true, "InternalServiceError": true,
		"ThrottlingException": true, "ResourceNotFoundException": true},
	NotFound: "ResourceNotFoundException", Exists: "ResourceExistsException",
}

// answered is the error the SDK returns for a service's answer: the API
// error under the HTTP response (status, request id) under the operation.
func answered(status int, requestID string, api error) error {
	return &smithy.OperationError{ServiceID: "X", OperationName: "Op", Err: &awshttp.ResponseError{RequestID: requestID,
		ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}}, Err: api}}}
}

func apiError(code string, fault smithy.ErrorFault) error {
	return &smithy.GenericAPIError{Code: code, Message: "provider text", Fault: fault}
}

// TestConvertError_EveryKindOfFailure: each kind of SDK failure reduced
// to its code, fault class and flags (SPEC §7.3): a server fault by the
// error's fault or by an HTTP status from 500 is ambiguous, a client
// fault below 500 is not; a throttle is a client fault, throttled and
// never ambiguous whatever its status; an unknown code is UnknownError;
// an access denial is flagged; a parameter the SDK refused is
// ClientValidation; our own timeout is an ambiguous client fault; no
// answer is an ambiguous server fault; the request id is kept.
func TestConvertError_EveryKindOfFailure(t *testing.T) {
	for name, c := range map[string]struct {
		err                              error
		code, fault, requestID           string
		ambiguous, throttled, accessDeny bool
	}{
		"client fault":              {err: answered(400, "req-1", apiError("InvalidRequestException", smithy.FaultClient)), code: "InvalidRequestException", fault: engine.FaultClient, requestID: "req-1"},
		"status 499":                {err: answered(499, "req-2", apiError("InvalidRequestException", smithy.FaultUnknown)), code: "InvalidRequestException", fault: engine.FaultClient, requestID: "req-2"},
		"server fault by fault":     {err: answered(400, "req-3", apiError("InternalServiceError", smithy.FaultServer)), code: "InternalServiceError", fault: engine.FaultServer, requestID: "req-3", ambiguous: true},
		"server fault by status":    {err: answered(500, "", apiError("InternalServiceError", smithy.FaultUnknown)), code: "InternalServiceError", fault: engine.FaultServer, ambiguous: true},
		"server fault without HTTP": {err: apiError("InternalServiceError", smithy.FaultServer), code: "InternalServiceError", fault: engine.FaultServer, ambiguous: true},
		"client fault without HTTP": {err: apiError("InvalidRequestException", smithy.FaultClient), code: "InvalidRequestException", fault: engine.FaultClient},
		"unknown code":              {err: answered(400, "req-4", apiError("SomethingNew", smithy.FaultClient)), code: awscore.CodeUnknown, fault: engine.FaultClient, requestID: "req-4"},
		"throttle":                  {err: answered(400, "req-5", apiError("ThrottlingException", smithy.FaultClient)), code: "ThrottlingException", fault: engine.FaultClient, requestID: "req-5", throttled: true},
		"throttle at 503":           {err: answered(503, "", apiError("SlowDown", smithy.FaultServer)), code: "ThrottlingException", fault: engine.FaultClient, throttled: true},
		"access denied":             {err: answered(400, "req-6", apiError("AccessDeniedException", smithy.FaultClient)), code: "AccessDeniedException", fault: engine.FaultClient, requestID: "req-6", accessDeny: true},
		"invalid parameters":        {err: &smithy.OperationError{Err: smithy.InvalidParamsError{Context: "In"}}, code: awscore.CodeClientValidation, fault: engine.FaultClient},
		"our timeout":               {err: fmt.Errorf("op: %w", context.DeadlineExceeded), code: awscore.CodeTimeout, fault: engine.FaultClient, ambiguous: true},
		"our call cancelled":        {err: fmt.Errorf("op: %w", context.Canceled), code: awscore.CodeTimeout, fault: engine.FaultClient, ambiguous: true},
		"no answer":                 {err: fmt.Errorf("op: %w", io.ErrUnexpectedEOF), code: awscore.CodeConnection, fault: engine.FaultServer, ambiguous: true},
	} {
		t.Run(name, func(t *testing.T) {
			err := awscore.ConvertError(context.Background(), "GetSecretValue", c.err, testCodes)
			var e *engine.Error
			if !errors.As(err, &e) {
				t.Fatalf("%v: not an *engine.Error", err)
			}
			want := engine.Error{Operation: "GetSecretValue", Code: c.code, Fault: c.fault, RequestID: c.requestID,
				Ambiguous: c.ambiguous, Throttled: c.throttled, AccessDenied: c.accessDeny}
			if *e != want {
				t.Errorf("got  %+v\nwant %+v", *e, want)
			}
			if awscore.IsThrottled(err) != c.throttled {
				t.Errorf("IsThrottled = %v", !c.throttled)
			}
			if !awscore.IsCode(err, c.code) || awscore.IsCode(err, c.code+"x") {
				t.Errorf("IsCode does not tell %s", c.code)
			}
		})
	}
}

// TestConvertError_NilAndCancelledRun: no error stays none; a failure
// while the run's own context is done is the run's cancellation, never a
// converted error.
func TestConvertError_NilAndCancelledRun(t *testing.T) {
	if err := awscore.ConvertError(context.Background(), "Op", nil, testCodes); err != nil {
		t.Errorf("nil → %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := awscore.ConvertError(ctx, "Op", apiError("InternalServiceError", smithy.FaultServer), testCodes); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run → %v, want context.Canceled", err)
	}
}

// TestIsAnswer: the service answered a converted error with a request id,
// or with a code only an answer carries; never a throttle, our timeout, a
// lost connection, the SDK's own refusal or an error that is not
// converted.
func TestIsAnswer(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&engine.Error{Code: "InvalidRequestException"}, true},
		{&engine.Error{Code: awscore.CodeUnknown}, true},
		{&engine.Error{Code: awscore.CodeTimeout, RequestID: "req"}, true},
		{&engine.Error{Code: awscore.CodeTimeout}, false},
		{&engine.Error{Code: awscore.CodeConnection}, false},
		{&engine.Error{Code: awscore.CodeClientValidation}, false},
		{&engine.Error{Code: "ThrottlingException", RequestID: "req", Throttled: true}, false},
		{errors.New("not converted"), false},
		{nil, false},
	} {
		if got := awscore.IsAnswer(c.err); got != c.want {
			t.Errorf("IsAnswer(%#v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// v1 is a retryer without GetAttemptToken (aws.Retryer only) that retries
// everything and counts the initial tokens handed out.
type v1 struct{ initial int }

func (*v1) IsErrorRetryable(error) bool                                     { return true }
func (*v1) MaxAttempts() int                                                { return 3 }
func (*v1) RetryDelay(int, error) (time.Duration, error)                    { return 0, nil }
func (*v1) GetRetryToken(context.Context, error) (func(error) error, error) { return nil, nil }
func (v *v1) GetInitialToken() func(error) error {
	v.initial++
	return func(error) error { return nil }
}

// TestNoThrottleRetry: a throttle is never retryable through the wrapped
// retryer, anything else is as the retryer says; nil stays nil, a
// wrapped retryer is not wrapped again, and a retryer without
// GetAttemptToken is lifted to one whose attempt token is its initial
// token.
func TestNoThrottleRetry(t *testing.T) {
	if awscore.NoThrottleRetry(nil) != nil {
		t.Error("nil retryer wrapped")
	}
	r := awscore.NoThrottleRetry(retry.NewStandard())
	if awscore.NoThrottleRetry(r) != r {
		t.Error("a wrapped retryer was wrapped again")
	}
	for _, code := range []string{"ThrottlingException", "SlowDown", "TooManyRequestsException"} {
		if r.IsErrorRetryable(apiError(code, smithy.FaultClient)) {
			t.Errorf("%s retryable", code)
		}
	}
	if !r.IsErrorRetryable(answered(500, "", apiError("InternalServiceError", smithy.FaultServer))) {
		t.Error("a server fault is no longer retryable")
	}
	old := &v1{}
	lifted := awscore.NoThrottleRetry(old)
	v2, ok := lifted.(aws.RetryerV2)
	if !ok {
		t.Fatal("not a RetryerV2")
	}
	if _, err := v2.GetAttemptToken(context.Background()); err != nil || old.initial != 1 {
		t.Errorf("GetAttemptToken: %v, initial tokens %d, want 1", err, old.initial)
	}
	if lifted.IsErrorRetryable(apiError("Throttling", smithy.FaultClient)) || !lifted.IsErrorRetryable(errors.New("x")) {
		t.Error("the lifted retryer does not leave throttles alone and the rest to its retryer")
	}
}
