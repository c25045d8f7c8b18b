package policy

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Namespace is the package whose rules are read (Conftest's default).
const Namespace = "main"

// MaxMessageBytes bounds one denial's message as shown (a longer one is
// cut, with "…").
const MaxMessageBytes = 300

// MaxDenials bounds the denials kept from one check (the rest counted).
const MaxDenials = 50

// Set is a directory's policies, compiled: its *.rego files (a file whose
// name ends in _test.rego is left out: OPA's own tests) and its data
// files (*.json, *.yaml: under data as OPA's loader places them), read
// recursively, and the run's Context.
type Set struct {
	query rego.PreparedEvalQuery
	files int
}

// Error is a policy directory that cannot be used: it cannot be read,
// holds no policy, or a policy does not parse or compile (the compiler's
// messages: file, line and what is wrong; never the input). Reason is
// what to show; a caller wraps it in its diagnostic.
type Error struct{ Reason string }

func (e *Error) Error() string { return "policy: " + e.Reason }

// capabilities are this OPA's builtins less the non-deterministic ones
// (ast.Builtin.Nondeterministic: the network, the clock, randomness, the
// runtime's environment): a policy that names one fails to compile.
func capabilities() *ast.Capabilities {
	c := ast.CapabilitiesForThisVersion()
	c.Builtins = slices.DeleteFunc(slices.Clone(c.Builtins), func(b *ast.Builtin) bool { return b.Nondeterministic })
	c.AllowNet = []string{}
	return c
}

// Load reads and compiles the policies of dir (a directory, read
// recursively, or one .rego file), with c as the data under
// data.sops_aws_sync (Context.Data: what a data file of dir says under
// that key is replaced). Failures are *Error.
func Load(ctx context.Context, dir string, c Context) (*Set, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, &Error{"the policy path cannot be read (give a directory of .rego files, or one file)"}
	}
	res, err := loader.NewFileLoader().Filtered([]string{dir}, func(_ string, info fs.FileInfo, _ int) bool {
		return !info.IsDir() && strings.HasSuffix(info.Name(), "_test.rego")
	})
	if err != nil {
		return nil, &Error{"the policies cannot be loaded: " + oneLine(err.Error(), 1000)}
	}
	if len(res.Modules) == 0 {
		return nil, &Error{"the policy directory holds no .rego file"}
	}
	data := res.Documents
	if data == nil {
		data = map[string]any{}
	}
	data[DataKey] = c.Data()
	opts := []func(*rego.Rego){
		rego.Query("data." + Namespace),
		rego.Data(data),
		rego.Capabilities(capabilities()),
		rego.StrictBuiltinErrors(true),
	}
	names := slices.Sorted(maps.Keys(res.Modules))
	for _, n := range names {
		opts = append(opts, rego.ParsedModule(res.Modules[n].Parsed))
	}
	q, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		return nil, &Error{"the policies do not compile: " + oneLine(err.Error(), 1000)}
	}
	return &Set{query: q, files: len(names)}, nil
}

// Files is how many policy files the set compiled.
func (s *Set) Files() int { return s.files }

// Denial is one message of a deny or violation rule.
type Denial struct {
	// Rule is the rule's name (deny, violation, deny_<x>, violation_<x>).
	Rule string
	// Message is the rule's message: a string, or the msg of an object
	// (Conftest's form), cut to one line of at most MaxMessageBytes.
	Message string
}

// Check evaluates the set over input (the plan file, decoded as JSON: a
// map[string]any) and returns its denials sorted by rule, then message (at most MaxDenials;
// more is the count of the rest). An evaluation error (a builtin's
// error, a conflict between rules' values, a cancelled ctx) is *Error.
func (s *Set) Check(ctx context.Context, input map[string]any) (denials []Denial, more int, err error) {
	rs, err := s.query.Eval(ctx, rego.EvalInput(input))
	if err != nil {
		return nil, 0, &Error{"a policy failed while evaluating: " + oneLine(err.Error(), 1000)}
	}
	for _, r := range rs {
		for _, e := range r.Expressions {
			doc, ok := e.Value.(map[string]any)
			if !ok {
				continue
			}
			for name, v := range doc {
				if !denyRule(name) {
					continue
				}
				for _, m := range messages(v) {
					denials = append(denials, Denial{Rule: name, Message: m})
				}
			}
		}
	}
	sort.Slice(denials, func(i, j int) bool {
		if denials[i].Rule != denials[j].Rule {
			return denials[i].Rule < denials[j].Rule
		}
		return denials[i].Message < denials[j].Message
	})
	denials = slices.Compact(denials)
	if len(denials) > MaxDenials {
		return denials[:MaxDenials], len(denials) - MaxDenials, nil
	}
	return denials, 0, nil
}

// denyRule: Conftest's names of a rule whose messages fail the check.
func denyRule(name string) bool {
	return name == "deny" || name == "violation" || strings.HasPrefix(name, "deny_") || strings.HasPrefix(name, "violation_")
}

// messages are a rule's messages: a set (array) of strings or of objects
// with a string msg; a boolean true rule (deny { … } with no message) is
// one message naming nothing.
func messages(v any) []string {
	var out []string
	add := func(x any) {
		switch m := x.(type) {
		case string:
			out = append(out, oneLine(m, MaxMessageBytes))
		case map[string]any:
			if s, ok := m["msg"].(string); ok {
				out = append(out, oneLine(s, MaxMessageBytes))
			} else {
				out = append(out, "(a denial without a msg)")
			}
		case bool:
			if m {
				out = append(out, "(a denial without a message)")
			}
		default:
			out = append(out, "(a denial whose message is not a string)")
		}
	}
	if xs, ok := v.([]any); ok {
		for _, x := range xs {
			add(x)
		}
	} else {
		add(v)
	}
	return out
}

// oneLine is s as one printable line of at most limit bytes: control
// characters and line breaks become spaces, invalid UTF-8 is replaced,
// and a longer line is cut at a rune boundary with "…".
func oneLine(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) <= limit {
		return s
	}
	cut := limit - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
