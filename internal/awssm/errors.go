package awssm

import (
	"context"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
)

// codes are Secrets Manager's error codes that may be reported verbatim:
// the codes modelled for Secrets Manager plus the unmodelled ones real AWS
// returns (AWS API reference; ../shared/reference §1); any other is
// awscore.CodeUnknown. Its not-found and exists codes set the engine's
// flags (awscore.ConvertError).
var codes = awscore.Codes{Known: map[string]bool{
	"DecryptionFailure": true, "EncryptionFailure": true, "InternalServiceError": true,
	"InvalidNextTokenException": true, "InvalidParameterException": true, "InvalidRequestException": true,
	"LimitExceededException": true, "MalformedPolicyDocumentException": true, "PreconditionNotMetException": true,
	"PublicPolicyException": true, "ResourceExistsException": true, "ResourceNotFoundException": true,
	"ThrottlingException": true, "ValidationException": true, "AccessDeniedException": true,
	"UnrecognizedClientException": true, "InvalidSignatureException": true, "ExpiredTokenException": true,
	"IncompleteSignature": true, "ServiceUnavailable": true, "RequestTimeout": true, "RequestTimeoutException": true,
}, NotFound: "ResourceNotFoundException", Exists: "ResourceExistsException"}

// convert reduces an SDK error of Secrets Manager to the Port's error
// contract (awscore.ConvertError under codes).
func convert(parent context.Context, op string, err error) error {
	return awscore.ConvertError(parent, op, err, codes)
}

func isCode(err error, code string) bool { return awscore.IsCode(err, code) }
