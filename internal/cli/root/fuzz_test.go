package root

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzCommandLineNeverEchoesValues: whatever the command line, stderr never
// quotes an argument that is not a lower-case flag name. Every fuzzed word
// carries the upper-case marker ZQX, which no flag name can contain.
func FuzzCommandLineNeverEchoesValues(f *testing.F) {
	for _, s := range []string{"--bogus=ZQX", "ZQX", "-ZQX", "---ZQX", "--recovery-window-days=ZQX", "--secret-prefix ZQX x", "--config=ZQX"} {
		f.Add("plan", s)
		f.Add("sync", s)
	}
	f.Fuzz(func(t *testing.T, cmd, line string) {
		if strings.Contains(line, "report-file") {
			t.Skip("would write a report file into the package directory")
		}
		var args []string
		for _, w := range strings.Fields(line) {
			args = append(args, w+"ZQX")
		}
		fk := newFake(t)
		fk.exec(context.Background(), append([]string{cmd}, args...)...)
		require.NotContains(t, fk.err.String(), "ZQX", "stderr quotes an argument")
	})
}
