package scopes

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

func classOf(err error) string {
	var ds diag.Diagnostics
	if errors.As(err, &ds) && len(ds) > 0 {
		return ds[0].Class
	}
	return ""
}

// TestGenerate_RefusedBeforeAnyAWSCall: every check of the flags, the
// template and the output path ends the command before an Organizations
// client exists (the endpoint below would refuse every connection).
func TestGenerate_RefusedBeforeAnyAWSCall(t *testing.T) {
	dir := t.TempDir()
	badTemplate := filepath.Join(dir, "t.yaml")
	require.NoError(t, os.WriteFile(badTemplate, []byte("name: \"{nope}\"\n"), 0o600))
	out := filepath.Join(dir, "scopes.yaml")
	cases := map[string]struct {
		args  []string
		class string
	}{
		"no source":        {[]string{"--role-name", "r", "--output", out}, diag.UsageBadFlag},
		"no role":          {[]string{"--from-organizations", "--output", out}, diag.UsageBadFlag},
		"no output":        {[]string{"--from-organizations", "--role-name", "r"}, diag.UsageBadFlag},
		"bad tag":          {[]string{"--from-organizations", "--role-name", "r", "--output", out, "--regions", "eu-west-1", "--account-tag", "novalue"}, diag.UsageBadFlag},
		"no Region":        {[]string{"--from-organizations", "--role-name", "r", "--output", out}, diag.ConfigTemplate},
		"bad Region":       {[]string{"--from-organizations", "--role-name", "r", "--output", out, "--regions", "moon"}, diag.ConfigTemplate},
		"bad template":     {[]string{"--from-organizations", "--role-name", "r", "--output", out, "--regions", "eu-west-1", "--template", badTemplate}, diag.ConfigTemplate},
		"missing template": {[]string{"--from-organizations", "--role-name", "r", "--output", out, "--regions", "eu-west-1", "--template", filepath.Join(dir, "none.yaml")}, diag.ConfigTemplate},
		"output dir":       {[]string{"--from-organizations", "--role-name", "r", "--output", filepath.Join(dir, "missing", "x.yaml"), "--regions", "eu-west-1"}, diag.ReportScopesWriteFailed},
		"stray argument":   {[]string{"extra"}, diag.UsageStrayArgument},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("AWS_ENDPOINT_URL_ORGANIZATIONS", "http://127.0.0.1:1")
			var stderr bytes.Buffer
			f := factory.New(factory.BuildInfo{Version: "v"})
			f.IOStreams.ErrOut = &stderr
			cmd := NewCmdScopes(f, nil)
			cmd.SetArgs(append([]string{"generate"}, c.args...))
			cmd.SetContext(context.Background())
			err := cmd.Execute()
			assert.Equal(t, c.class, classOf(err), "%v", err)
			assert.NoFileExists(t, out)
		})
	}
}
