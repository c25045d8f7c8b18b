package archtest

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestRegression_NpmGoPackageInTheModule: an npm dependency of the Action
// (action/node_modules) or of the GitLab schema check ships Go source of
// its own (flatted's golang/pkg/flatted), which `go list ./...` counted as
// a package of this module once `npm ci` had run: `go test ./...` and
// `go vet ./...` then built npm's code, and TestEveryProductPackageHasALayer
// failed on it. go.mod's ignore directive (Go 1.25+) keeps every
// node_modules directory out of the module's package patterns.
func TestRegression_NpmGoPackageInTheModule(t *testing.T) {
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var mod struct{ Ignore []struct{ Path string } }
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(mod.Ignore, func(i struct{ Path string }) bool { return i.Path == "node_modules" }) {
		t.Fatalf("go.mod has no `ignore node_modules`: an npm package's Go source would be a package of this module")
	}
	for rel := range listPackages(t) {
		if slices.Contains(strings.Split(rel, "/"), "node_modules") {
			t.Errorf("%s is a package of this module", rel)
		}
	}
}
