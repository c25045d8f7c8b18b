package exitcode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func TestFor(t *testing.T) {
	reportFailed := diag.Diagnostics{diag.New(diag.ReportWriteFailed, diag.Subject{})}
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
		{&RunError{Status: vocab.StatusConverged, Diagnostics: reportFailed}, 3},
		{&RunError{Status: vocab.StatusInterrupted, Diagnostics: reportFailed}, 3},
		{diag.Diagnostics{diag.New(diag.UsageUnknownFlag, diag.Subject{})}, 3},
		{fmt.Errorf("wrapped: %w", diag.Diagnostics{diag.New(diag.ConfigRequired, diag.Subject{})}), 3},
		{errors.New("anything else"), 3},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, For(c.err), "%v", c.err)
	}
}

func TestLines(t *testing.T) {
	assert.Empty(t, Lines(nil))
	assert.Empty(t, Lines(&RunError{Status: vocab.StatusConflict}), "run outcomes are logged on stdout, not stderr")
	d := Lines(diag.Diagnostics{diag.New(diag.ConfigRequired, diag.Subject{Setting: "secret-prefix"}).WithSummary("is required")})
	assert.Equal(t, []string{
		"sops-aws-sync: setting --secret-prefix: is required (config:required)",
		"next: fix the named setting (see docs/configuration.md) and re-run; nothing was read from Git or AWS",
	}, d)
	d = Lines(&RunError{Status: vocab.StatusConverged, Diagnostics: diag.Diagnostics{diag.New(diag.ReportWriteFailed, diag.Subject{})}})
	assert.Contains(t, d[0], "report:write-failed")
	assert.Equal(t, []string{"sops-aws-sync: internal error (internal)", "next: re-run; if it persists, report a bug with the log records from stdout"}, Lines(errors.New("x")))
}
