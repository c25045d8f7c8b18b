package exitcode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func TestFor(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&RunError{Status: vocab.StatusDrift, Detailed: true}, 2},
		{&RunError{Status: vocab.StatusDrift}, 0},
		{&RunError{Status: vocab.StatusInvalid}, 3},
		{&RunError{Status: vocab.StatusConflict}, 4},
		{&RunError{Status: vocab.StatusApplyFailed}, 5},
		{&RunError{Status: vocab.StatusObservationFailed}, 5},
		{&RunError{Status: vocab.StatusVerificationFailed}, 6},
		{&RunError{Status: vocab.StatusVerificationInconclusive}, 6},
		{&RunError{Status: vocab.StatusInterrupted}, 130},
		{&RunError{Status: vocab.StatusConverged, ReportErr: &report.WriteError{Step: "rename"}}, 3},
		{&RunError{Status: vocab.StatusInterrupted, ReportErr: &report.WriteError{Step: "create"}}, 3},
		{&UsageError{Class: "usage:unknown-flag", Message: "x"}, 3},
		{fmt.Errorf("wrapped: %w", &config.Error{}), 3},
		{errors.New("anything else"), 3},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, For(c.err), "%v", c.err)
	}
}

func TestDiagnostic(t *testing.T) {
	assert.Empty(t, Diagnostic(nil))
	assert.Empty(t, Diagnostic(&RunError{Status: vocab.StatusConflict}), "run outcomes are logged on stdout, not stderr")
	d := Diagnostic(&config.Error{Problems: []config.Problem{{Class: config.ClassRequired, Setting: "secret-prefix", Reason: "is required"}}})
	assert.Len(t, d, 2)
	assert.Contains(t, d[0], "secret-prefix")
	assert.Contains(t, d[1], "next:")
	d = Diagnostic(&RunError{Status: vocab.StatusConverged, ReportErr: &report.WriteError{Step: "create"}})
	assert.Contains(t, d[0], "report:write-failed")
	assert.Len(t, Diagnostic(errors.New("x")), 2)
}
