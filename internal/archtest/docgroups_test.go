package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRegression_EveryExampleKeysItsConcurrencyGroupByOneRule: issue 44
// §4. README.md and docs/github-action.md gave two different concurrency
// groups for the same scope (one with the Region, one without), so two
// workflows copied from them could sync one prefix at once. Every example
// workflow that runs the Action — a YAML block of README.md or docs/, and
// every file of .github/workflows/examples — keys its group by the one
// rule docs/github-action.md states: the bucket the job writes,
// "sops-aws-sync-<repository>-<account>-<Region>-<secret prefix>" (the
// account of the role the job assumes, its aws-region, its secret-prefix),
// "sops-aws-sync-drift-check-…" for a workflow that only plans, and the
// config file in place of the bucket for a workflow of a config file's
// scopes.
func TestRegression_EveryExampleKeysItsConcurrencyGroupByOneRule(t *testing.T) {
	blocks := map[string][]string{}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	fence := regexp.MustCompile("(?ms)^```ya?ml\n(.*?)^```")
	for _, f := range append(docs, "../../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range fence.FindAllStringSubmatch(string(b), -1) {
			blocks[filepath.Base(f)] = append(blocks[filepath.Base(f)], m[1])
		}
	}
	examples, err := filepath.Glob("../../.github/workflows/examples/*.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range examples {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks[filepath.Base(f)] = append(blocks[filepath.Base(f)], string(b))
	}

	field := func(block, key string) string {
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(key) + `:[ \t]*(.*?)[ \t]*(#.*)?$`).FindStringSubmatch(block)
		if m == nil {
			return ""
		}
		return strings.Trim(m[1], `"'`)
	}
	account := regexp.MustCompile(`^arn:aws:iam::(\d{12}):role/`)
	checked := map[string]int{}
	for where, bs := range blocks {
		for _, b := range bs {
			group := field(b, "group")
			if group == "" || !strings.Contains(b, "uses: sops-aws-sync/sops-aws-sync@") {
				continue
			}
			kind := "sops-aws-sync-"
			if field(b, "mode") != "sync" {
				kind += "drift-check-"
			}
			var want string
			if file := field(b, "config-file"); file != "" {
				want = kind + "${{ github.repository }}-" + file
			} else {
				m := account.FindStringSubmatch(field(b, "role-to-assume"))
				region, prefix := field(b, "aws-region"), field(b, "secret-prefix")
				if m == nil || region == "" || prefix == "" {
					t.Errorf("%s: a workflow with concurrency group %q gives no role-to-assume, aws-region or secret-prefix to key it by", where, group)
					continue
				}
				want = kind + "${{ github.repository }}-" + m[1] + "-" + region + "-" + prefix
			}
			if group != want {
				t.Errorf("%s: concurrency group %q, want %q (docs/github-action.md: the bucket's one rule)", where, group, want)
			}
			checked[where]++
		}
	}
	// The rule is checked where the examples are: a page that lost its
	// examples (or a parse that found none) fails here, not silently.
	for _, where := range []string{"README.md", "github-action.md", "secrets-sync.yml", "secrets-drift-check.yml",
		"secrets-sync-redeploy.yml", "secrets-scopes-sync.yml", "secrets-scopes-drift-check.yml"} {
		if checked[where] == 0 {
			t.Errorf("%s: no example workflow with a concurrency group found", where)
		}
	}
	if n := checked["github-action.md"]; n < 5 {
		t.Errorf("github-action.md: %d example workflows with a concurrency group checked, want at least 5", n)
	}
}
