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
