package chaos

import (
	"cmp"
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
	wrappers := map[string]struct {
		script, want string
		seed         uint64 // 0 = 9
		n            int    // scenarios; 0 = 8
		only         int    // the one scenario to play; 0 = all
	}{
		// Deletes with a 7-day window whatever the configuration says.
		"window": {`args=(); prev=""
for a in "$@"; do if [ "$prev" = "--recovery-window-days" ]; then a=7; fi; args+=("$a"); prev="$a"; done
exec "$CLI" "${args[@]}"`, "deletion-window", 0, 0, 0},
		// Prints the age key file before running.
		"leak": {`cat "$SOPS_AGE_KEY_FILE"; exec "$CLI" "$@"`, "leak:age-identity", 0, 0, 0},
		// Applies when asked to plan.
		"plan": {`if [ "$1" = plan ]; then shift; args=(); for a in "$@"; do [ "$a" = --detailed-exit-code ] || args+=("$a"); done; exec "$CLI" sync "${args[@]}"; fi
exec "$CLI" "$@"`, "plan-mutated", 0, 0, 0},
		// Swallows the exit code.
		"exit": {`"$CLI" "$@"; exit 0`, "exit-status-mismatch", 0, 0, 0},
		// Drops the Parameter Store scope's target: its documents land in
		// Secrets Manager (scenario 3 of seed 1 has a Parameter Store scope
		// under a prefix of its own).
		"ps-target": {`prev=""; for a in "$@"; do if [ "$prev" = "--config" ]; then sed -i '/target: parameter-store/d' "$a"; fi; prev="$a"; done
exec "$CLI" "$@"`, "ps-missing", 1, 4, 3},
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
				Scenarios: cmp.Or(w.n, 8), Seed: cmp.Or(w.seed, 9), Workers: 2, Only: cmp.Or(w.only, -1), Gen: DefaultGenOptions, WorkDir: filepath.Join(dir, "work"),
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
