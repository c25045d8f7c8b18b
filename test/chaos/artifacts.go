package chaos

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// keepArtifacts copies a failing scenario's scratch directory (repository,
// age-encrypted documents, reports) to dst and adds the evidence as JSON and
// the outputs of every run, so the failure can be studied and replayed
// (`chaos -only N -seed S` replays the scenario itself).
func keepArtifacts(dst, scratch string, s *Scenario, ev *Evidence, o Outcome) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	if err := os.CopyFS(filepath.Join(dst, "scratch"), os.DirFS(scratch)); err != nil {
		return err
	}
	write := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, name), b, 0o600)
	}
	var lines []string
	for _, v := range o.Violations {
		lines = append(lines, v.String())
	}
	for _, l := range o.Leaks {
		lines = append(lines, "leak: "+l.String())
	}
	if o.Err != nil {
		lines = append(lines, "harness: "+o.Err.Error())
	}
	if err := os.WriteFile(filepath.Join(dst, "findings.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	if err := write("scenario.json", s); err != nil {
		return err
	}
	if ev == nil {
		return nil
	}
	if err := write("pre.json", ev.Pre); err != nil {
		return err
	}
	if err := write("post.json", ev.Post); err != nil {
		return err
	}
	if err := write("calls.json", ev.Calls); err != nil {
		return err
	}
	if err := write("stats.json", o.Stats); err != nil {
		return err
	}
	for i, rr := range ev.Runs {
		base := filepath.Join(dst, fmt.Sprintf("run-%d-%s", i+1, rr.Run.Command))
		meta := map[string]any{"run": rr.Run, "revision": rr.Revision, "exit": rr.Exit, "killed": rr.Killed, "duration_ms": rr.Duration.Milliseconds()}
		b, _ := json.MarshalIndent(meta, "", "  ")
		for suffix, data := range map[string][]byte{".meta.json": b, ".stdout": rr.Stdout, ".stderr": rr.Stderr, ".report.json": rr.Report} {
			if data == nil {
				continue
			}
			if err := os.WriteFile(base+suffix, data, 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}
