package awscore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
)

// TestConvertError_ExistsAndNotFoundByTheTargetsCodes: a service error
// whose code is the target's "already exists" code is Exists (and not
// NotFound), its "not found" code is NotFound (and not Exists), and any
// other known code is neither.
func TestConvertError_ExistsAndNotFoundByTheTargetsCodes(t *testing.T) {
	codes := awscore.Codes{
		Known:    map[string]bool{"ResourceExistsException": true, "ResourceNotFoundException": true, "InvalidRequestException": true},
		NotFound: "ResourceNotFoundException", Exists: "ResourceExistsException",
	}
	for _, tc := range []struct {
		code             string
		exists, notFound bool
	}{
		{"ResourceExistsException", true, false},
		{"ResourceNotFoundException", false, true},
		{"InvalidRequestException", false, false},
	} {
		err := awscore.ConvertError(context.Background(), "CreateSecret", &smithy.GenericAPIError{Code: tc.code}, codes)
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != tc.code || e.Exists != tc.exists || e.NotFound != tc.notFound {
			t.Errorf("%s → %#v; want Exists %v, NotFound %v", tc.code, err, tc.exists, tc.notFound)
		}
	}
}

// TestConvertError_RefusedCodesPassAsThrottles: a code of the service's
// Refused set (Parameter Store's TooManyUpdates) was not executed: it is
// Throttled, never ambiguous, a client fault, and keeps its code; the same
// code of a service that does not list it is a plain client error.
func TestConvertError_RefusedCodesPassAsThrottles(t *testing.T) {
	known := map[string]bool{"TooManyUpdates": true}
	refusing := awscore.Codes{Known: known, Refused: map[string]bool{"TooManyUpdates": true}}
	for _, fault := range []smithy.ErrorFault{smithy.FaultClient, smithy.FaultServer} {
		err := awscore.ConvertError(context.Background(), "PutParameter", &smithy.GenericAPIError{Code: "TooManyUpdates", Fault: fault}, refusing)
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != "TooManyUpdates" || !e.Throttled || e.Ambiguous || e.Fault != engine.FaultClient {
			t.Errorf("TooManyUpdates (%v) → %#v; want Throttled, not ambiguous, a client fault, code kept", fault, err)
		}
		if !awscore.IsThrottled(err) || awscore.IsAnswer(err) {
			t.Errorf("TooManyUpdates (%v): IsThrottled %v, IsAnswer %v; want a throttle, not an answer", fault, awscore.IsThrottled(err), awscore.IsAnswer(err))
		}
	}
	err := awscore.ConvertError(context.Background(), "PutParameter", &smithy.GenericAPIError{Code: "TooManyUpdates"}, awscore.Codes{Known: known})
	var e *engine.Error
	if !errors.As(err, &e) || e.Throttled || e.Code != "TooManyUpdates" {
		t.Errorf("TooManyUpdates without Refused → %#v; want a plain client error", err)
	}
}
