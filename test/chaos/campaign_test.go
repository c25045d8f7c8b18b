package chaos

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCampaignCatchesBrokenCLIs proves the campaign has teeth: wrappers
// around the real CLI that break one promise each must make it fail with
// the matching finding. It needs the built binaries: CHAOS_BIN=$PWD/bin
// go test ./test/chaos -run BrokenCLIs (skipped otherwise).
func TestCampaignCatchesBrokenCLIs(t *testing.T) {
	bin := os.Getenv("CHAOS_BIN")
	if bin == "" {
		t.Skip("CHAOS_BIN (directory of sops-aws-sync and secretsmanager-emulator) not set")
	}
	cli := filepath.Join(bin, "sops-aws-sync")
	wrappers := map[string]struct{ script, want string }{
		// Deletes with a 7-day window whatever the configuration says.
		"window": {`args=(); prev=""
for a in "$@"; do if [ "$prev" = "--recovery-window-days" ]; then a=7; fi; args+=("$a"); prev="$a"; done
exec "$CLI" "${args[@]}"`, "deletion-window"},
		// Prints the age key file before running.
		"leak": {`cat "$SOPS_AGE_KEY_FILE"; exec "$CLI" "$@"`, "leak:age-identity"},
		// Applies when asked to plan.
		"plan": {`if [ "$1" = plan ]; then shift; args=(); for a in "$@"; do [ "$a" = --detailed-exit-code ] || args+=("$a"); done; exec "$CLI" sync "${args[@]}"; fi
exec "$CLI" "$@"`, "plan-mutated"},
		// Swallows the exit code.
		"exit": {`"$CLI" "$@"; exit 0`, "exit-status-mismatch"},
	}
	for name, w := range wrappers {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, name+".sh")
			body := "#!/bin/bash\nCLI=" + cli + "\n" + w.script + "\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			sum, err := RunCampaign(Config{
				CLI: script, Emulator: filepath.Join(bin, "secretsmanager-emulator"),
				Scenarios: 8, Seed: 9, Workers: 2, Only: -1, Gen: DefaultGenOptions, WorkDir: filepath.Join(dir, "work"),
			})
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for k := range sum.Violations {
				found = append(found, k)
			}
			for k := range sum.Leaks {
				found = append(found, "leak:"+k)
			}
			if !sum.Failed() || !slices.Contains(found, w.want) {
				t.Fatalf("findings %v do not include %s", found, w.want)
			}
		})
	}
}
