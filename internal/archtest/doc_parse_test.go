package archtest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// archDoc is where the layers and the rules live; this package has no copy.
const archDoc = "../../docs/architecture.md"

// architecture is what archtest reads from docs/architecture.md's
// "## Layers" section: the fenced layer block and the rules list.
type architecture struct {
	// layers is the block, top to bottom; each layer is its package paths
	// relative to the module.
	layers [][]string
	// outside holds the paths of the module's trees named in the "Outside
	// the layers" paragraph (internal/emulator, bench, scripts/mutation).
	outside []string
	// rules maps a rule's bold title (without its final ".") to its text.
	rules map[string]string
	// order is the rules' titles in the order of the doc.
	order []string
}

var (
	ruleLine = regexp.MustCompile(`^- \*\*([^*]+?)\.\*\* (.*)$`)
	// treePath is a path of the module's Go trees as the doc names it.
	treePath = regexp.MustCompile(`^(internal|cmd|test|bench|scripts|schemas)(/[a-z0-9_.-]+)*$`)
	codeSpan = regexp.MustCompile("`([^`]+)`")
	// a layer line: paths separated by ", ", then two or more spaces (or
	// the end of the line), then the description.
	layerLine = regexp.MustCompile(`^((?:[a-z0-9_./-]+)(?:, [a-z0-9_./-]+)*)(?: {2,}.*)?$`)
)

// readArchitecture parses docs/architecture.md; any line of the layer block
// or the rules list it cannot read fails the test, so the doc keeps a form
// this parser understands.
func readArchitecture(t *testing.T) architecture {
	t.Helper()
	b, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := parseArchitecture(string(b))
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	return a
}

func parseArchitecture(doc string) (architecture, error) {
	a := architecture{rules: map[string]string{}}
	_, section, ok := strings.Cut(doc, "\n## Layers")
	if !ok {
		return a, fmt.Errorf("no \"## Layers\" section")
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	_, rest, ok := strings.Cut(section, "\n```\n")
	if !ok {
		return a, fmt.Errorf("the Layers section has no fenced layer block")
	}
	block, after, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		return a, fmt.Errorf("the layer block is not closed")
	}
	for _, line := range strings.Split(block, "\n") {
		if strings.TrimSpace(line) == "" || line[0] == ' ' {
			continue // a description's continuation
		}
		m := layerLine.FindStringSubmatch(line)
		if m == nil {
			return a, fmt.Errorf("layer line %q is not \"path, path  description\"", line)
		}
		a.layers = append(a.layers, strings.Split(m[1], ", "))
	}
	if len(a.layers) == 0 {
		return a, fmt.Errorf("the layer block is empty")
	}

	paragraphs := strings.Split(after, "\n\n")
	for _, p := range paragraphs {
		if strings.HasPrefix(strings.TrimSpace(p), "Outside the layers:") {
			for _, m := range codeSpan.FindAllStringSubmatch(p, -1) {
				if treePath.MatchString(m[1]) {
					a.outside = append(a.outside, m[1])
				}
			}
		}
	}
	// The rules list: bullets "- **Title.** text", continued by indented lines.
	var current string
	for _, line := range strings.Split(after, "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			m := ruleLine.FindStringSubmatch(line)
			if m == nil {
				return a, fmt.Errorf("rule %q does not start with a bold title (- **Title.** text)", line)
			}
			current = m[1]
			if _, dup := a.rules[current]; dup {
				return a, fmt.Errorf("rule %q is stated twice", current)
			}
			a.rules[current] = m[2]
			a.order = append(a.order, current)
		case current != "" && strings.HasPrefix(line, "  "):
			a.rules[current] += " " + strings.TrimSpace(line)
		default:
			current = ""
		}
	}
	return a, nil
}

// rule returns the text of the rule titled title, failing the test when
// the doc does not state it.
func (a architecture) rule(t *testing.T, title string) string {
	t.Helper()
	text, ok := a.rules[title]
	if !ok {
		t.Fatalf("docs/architecture.md states no rule %q, which archtest checks: state it, or delete its test", title)
	}
	return text
}

// packagesIn returns the packages a rule's text names in code spans, as
// module-relative paths ("model" → "internal/model"; paths are kept).
func packagesIn(text string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		name := m[1]
		if !strings.Contains(name, "/") {
			name = "internal/" + name
		}
		out = append(out, name)
	}
	return out
}

// layerOf returns the index of rel's layer in layers, or -1 when it is in
// none: the longest listed path equal to rel or containing it wins.
func layerOf(layers [][]string, rel string) int {
	best, bestLen := -1, 0
	for i, l := range layers {
		for _, p := range l {
			if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

func within(rel string, paths []string) bool {
	for _, p := range paths {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}
