package awssm

import (
	"context"
	"errors"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
)

// knownCodes are the error codes that may be reported verbatim: the codes
// modelled for Secrets Manager plus the unmodelled ones real AWS returns
// (AWS API reference; ../shared/reference §1). Anything else becomes
// "UnknownError", so a hostile or broken endpoint cannot inject text.
var knownCodes = map[string]bool{
	"DecryptionFailure": true, "EncryptionFailure": true, "InternalServiceError": true,
	"InvalidNextTokenException": true, "InvalidParameterException": true, "InvalidRequestException": true,
	"LimitExceededException": true, "MalformedPolicyDocumentException": true, "PreconditionNotMetException": true,
	"PublicPolicyException": true, "ResourceExistsException": true, "ResourceNotFoundException": true,
	"ThrottlingException": true, "ValidationException": true, "AccessDeniedException": true,
	"UnrecognizedClientException": true, "InvalidSignatureException": true, "ExpiredTokenException": true,
	"IncompleteSignature": true, "ServiceUnavailable": true, "RequestTimeout": true, "RequestTimeoutException": true,
}

// Our own codes for failures that carry no service answer.
const (
	CodeTimeout          = "Timeout"
	CodeConnection       = "ConnectionError"
	CodeClientValidation = "ClientValidation"
	CodeUnknown          = "UnknownError"
)

// convert reduces an SDK error to the Port's error contract. parent is the
// run's context: when it is done the run was cancelled and its error is
// returned as is.
func convert(parent context.Context, op string, err error) error {
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
		if !knownCodes[e.Code] {
			e.Code = CodeUnknown
		}
		e.Fault = engine.FaultClient
		var sre *smithyhttp.ResponseError
		if api.ErrorFault() == smithy.FaultServer || (errors.As(err, &sre) && sre.HTTPStatusCode() >= 500) {
			e.Fault = engine.FaultServer
			// A server fault may have happened after the write landed.
			e.Ambiguous = true
		}
		e.NotFound = e.Code == "ResourceNotFoundException"
		e.AccessDenied = e.Code == "AccessDeniedException"
	case errors.As(err, &params):
		e.Code, e.Fault = CodeClientValidation, engine.FaultClient
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		// The per-call timeout fired (the parent is still alive).
		e.Code, e.Fault, e.Ambiguous = CodeTimeout, engine.FaultServer, true
	default:
		// No answer: connection refused, reset or closed. The request may
		// have been applied.
		e.Code, e.Fault, e.Ambiguous = CodeConnection, engine.FaultServer, true
	}
	return e
}

func isCode(err error, code string) bool {
	var e *engine.Error
	return errors.As(err, &e) && e.Code == code
}
