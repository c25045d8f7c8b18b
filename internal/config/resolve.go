package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"gopkg.in/yaml.v3"
)

// Input is everything Resolve reads. It is a snapshot: Resolve never touches
// the process environment or the file system except through ReadFile.
type Input struct {
	// Command is "plan" or "sync".
	Command string
	// Flags holds the flags given explicitly on the command line, by name,
	// with their raw values.
	Flags map[string]string
	// RefusedFlags holds flags given on the command line whose raw text the
	// command line reader could not use, by name, with the reason (a --tag
	// value holding a line break). Each is a config:invalid-value problem;
	// the setting then has no value from any source.
	RefusedFlags map[string]string
	// Environ is the environment as "KEY=value" entries (os.Environ()).
	Environ []string
	// ReadFile reads the --config file; called only when --config is given.
	ReadFile func(name string) ([]byte, error)
}

// MaxConfigFileBytes bounds the --config file.
const MaxConfigFileBytes = 1 << 20

type raw struct {
	value  string
	source Source
}

// Resolve merges flag > environment > config file > default and validates
// every setting (SPEC §2.1). On error it returns a diag.Diagnostics listing
// every problem (config:* classes, subject the setting), together with the
// options it could resolve (so that a caller can still honour a valid
// --report-file).
func Resolve(in Input) (Options, error) {
	var probs []Problem
	vals := map[string]raw{}
	for _, s := range Settings {
		if s.PlanOnly && in.Command != "plan" {
			continue
		}
		if s.Default != "" {
			vals[s.Name] = raw{s.Default, SourceDefault}
		}
	}

	// Config file (lowest explicit precedence), only when --config is given.
	var file fileConfig
	if name, ok := in.Flags[ConfigFile]; ok {
		var fp []Problem
		file, fp = readConfigFile(name, in)
		probs = append(probs, fp...)
		for k, v := range file.values {
			vals[k] = raw{v, SourceFile}
		}
	}

	// Environment.
	envNames := make([]string, 0)
	env := map[string]string{}
	for _, kv := range in.Environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, EnvPrefix) {
			continue
		}
		env[k] = v
		envNames = append(envNames, k)
	}
	sort.Strings(envNames)
	for _, k := range envNames {
		name := settingForEnv(k)
		s, known := Lookup(name)
		switch {
		case !known || EnvName(name) != k:
			probs = append(probs, Problem{ClassUnknownEnv, k, SourceEnv, unknownEnvReason(name)})
			continue
		case s.FlagOnly:
			probs = append(probs, Problem{ClassFlagOnly, k, SourceEnv, "may only be given as the command-line flag --" + name})
			continue
		}
		if env[k] == "" {
			continue // empty variables count as unset (CI systems export empty inputs)
		}
		vals[name] = raw{env[k], SourceEnv}
	}

	// Flags (highest precedence).
	flagNames := make([]string, 0, len(in.Flags))
	for k := range in.Flags {
		flagNames = append(flagNames, k)
	}
	sort.Strings(flagNames)
	for _, k := range flagNames {
		vals[k] = raw{in.Flags[k], SourceFlag}
	}
	refused := make([]string, 0, len(in.RefusedFlags))
	for k := range in.RefusedFlags {
		refused = append(refused, k)
	}
	sort.Strings(refused)
	for _, k := range refused {
		probs = append(probs, Problem{ClassInvalidValue, k, SourceFlag, in.RefusedFlags[k]})
		delete(vals, k)
	}

	override := oneScope(in.Flags[ScopeFilter])
	if file.hasScopes && override == "" {
		probs = append(probs, ambiguous(vals)...)
	}

	o, rejected, bp := bindAll(vals, in.Command, file.hasScopes)
	probs = append(probs, bp...)
	if file.hasScopes {
		// With --scope selecting one scope, a per-scope flag or variable is
		// that scope's value for this run only: every scope is built from
		// the file and the defaults alone, the selected one with the
		// overrides on top.
		base, baseVals, baseRejected, over := o, vals, rejected, oneOff{}
		if override != "" {
			over = oneOff{scope: override, rejected: rejected}
			over.values, baseVals = splitOverrides(vals, file.values)
			var fp []Problem
			base, baseRejected, fp = bindAll(baseVals, in.Command, true)
			for _, p := range fp {
				if _, hidden := over.values[p.settingName()]; hidden {
					probs = append(probs, p) // the file's value, hidden by the override at the top level
				}
			}
		}
		scopes, sp := resolveScopes(base, file.scopes, baseVals, baseRejected, over)
		probs = append(probs, sp...)
		o.Scopes = scopes
	} else {
		o.Scopes = []Scope{{Name: model.DefaultScopeName, Desired: o.Desired, Engine: o.Engine, AWS: o.AWS, Sources: o.Sources}}
	}
	probs = append(probs, chooseRoles(o.Scopes, in.Command, o.Sources)...)
	chooseRole(&o.AWS, in.Command)
	o.Configured = o.Scopes
	if o.Run.ScopeNames != nil {
		var fp []Problem
		o.Scopes, fp = selectScopes(o.Scopes, o.Run.ScopeNames, vals[ScopeFilter].source)
		probs = append(probs, fp...)
	}
	if len(probs) > 0 {
		return o, diagnostics(probs)
	}
	return o, nil
}

// bindAll binds every setting's raw value (vals) into fresh Options, in
// declaration order; it returns the options, the settings whose value broke
// their rule, and the problems (a required setting without a value, unless
// it is per scope and the file lists scopes).
func bindAll(vals map[string]raw, command string, hasScopes bool) (Options, map[string]bool, []Problem) {
	var probs []Problem
	o := Options{Sources: map[string]Source{}}
	rejected := map[string]bool{} // settings whose top-level value broke their rule
	for _, s := range Settings {
		if s.PlanOnly && command != "plan" {
			continue
		}
		r, ok := vals[s.Name]
		if !ok {
			if s.Required && !(hasScopes && s.PerScope) {
				probs = append(probs, Problem{ClassRequired, s.Name, SourceDefault, "is required; give --" + s.Name + ", " + EnvName(s.Name) + " or the config key " + s.Name})
			}
			continue
		}
		o.Sources[s.Name] = r.source
		if p, ok := s.set(&o, r.value); !ok {
			p.Setting = settingLabel(s.Name, r.source)
			p.Source = r.source
			probs = append(probs, p)
			rejected[s.Name] = true
		}
	}
	return o, rejected, probs
}

func settingLabel(name string, src Source) string {
	if src == SourceEnv {
		return EnvName(name)
	}
	return name
}

// set parses one raw value by the setting's Kind and hands it to the
// setting's bind. It returns a problem (without setting/source filled in)
// and false when the value is rejected.
func (s Setting) set(o *Options, v string) (Problem, bool) {
	invalid := func(reason string) (Problem, bool) { return Problem{Class: ClassInvalidValue, Reason: reason}, false }
	if v == "" {
		return invalid("must not be empty")
	}
	if !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool {
		return (r < 0x20 && !(kinds[s.Kind].lines && (r == '\n' || r == '\r'))) || r == 0x7f
	}) {
		return invalid("must be printable UTF-8 text without control characters")
	}
	parsed, p := any(v), Problem{}
	if parse := kinds[s.Kind].parse; parse != nil {
		if parsed, p = parse(s, v); p.Class != "" {
			return p, false
		}
	}
	if err := s.bind(o, parsed); err != nil {
		return invalid(err.Error())
	}
	return Problem{}, true
}

// outOfRange is the reason for a KindInt value whose digits do not fit an
// int: "is out of range" and the range the setting accepts, which its own
// rule states when given the nearest int (the rule runs on scratch options,
// so nothing is stored).
func (s Setting) outOfRange(v string) string {
	nearest := math.MaxInt
	if strings.HasPrefix(v, "-") {
		nearest = math.MinInt
	}
	var scratch Options
	if err := s.bind(&scratch, nearest); err != nil {
		return "is out of range: " + err.Error()
	}
	if nearest < 0 {
		return fmt.Sprintf("is out of range: must be at least %d", math.MinInt)
	}
	return fmt.Sprintf("is out of range: must be at most %d", math.MaxInt)
}

func parseBool(v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errors.New("not a bool")
}

// errSizeRange: a size whose byte count does not fit an int64.
var errSizeRange = errors.New("size out of range")

var sizeRE = regexp.MustCompile(`^([0-9]+)(B|KiB|MiB|GiB)?$`)

// ParseSize parses a byte size: digits with an optional suffix B, KiB
// (1024), MiB (1024²) or GiB (1024³); a bare number is bytes (SPEC §2.1).
func ParseSize(v string) (int64, error) {
	m := sizeRE.FindStringSubmatch(v)
	if m == nil {
		return 0, errors.New("not a size")
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, errSizeRange
	}
	mult := int64(1)
	switch m[2] {
	case "KiB":
		mult = 1 << 10
	case "MiB":
		mult = 1 << 20
	case "GiB":
		mult = 1 << 30
	}
	if n > math.MaxInt64/mult {
		return 0, errSizeRange
	}
	return n * mult, nil
}

// readConfigFile reads and type-checks the YAML config file. Keys must be
// setting names; values must have the setting's YAML type. Returned values
// are raw strings, validated later like any other source.
func readConfigFile(name string, in Input) (fileConfig, []Problem) {
	fileProblem := func(reason string) []Problem {
		return []Problem{{Class: ClassFile, Source: SourceFile, Reason: reason}}
	}
	if name == "" {
		return fileConfig{}, []Problem{{ClassInvalidValue, ConfigFile, SourceFlag, "must not be empty"}}
	}
	if in.ReadFile == nil {
		return fileConfig{}, fileProblem("cannot be read")
	}
	data, err := in.ReadFile(name)
	if err != nil {
		return fileConfig{}, fileProblem("cannot be read; check the path given to --config and its permissions")
	}
	return parseConfig(data)
}

// fileConfig is what the config file holds: the top-level settings' raw
// values by setting name, and the entries of scopes: when it has that key.
type fileConfig struct {
	values    map[string]string
	hasScopes bool
	scopes    []scopeEntry
}

// ReasonNoSettings is the config:file reason for a --config file that holds
// no settings at all.
const ReasonNoSettings = "holds no settings (it is empty or only comments); add settings or drop --config"

// parseConfig is the YAML config parser (fuzzed). It never includes YAML
// library error text in a problem, because that text can quote the input.
func parseConfig(data []byte) (fileConfig, []Problem) {
	fileProblem := func(reason string) []Problem {
		return []Problem{{Class: ClassFile, Source: SourceFile, Reason: reason}}
	}
	if len(data) > MaxConfigFileBytes {
		return fileConfig{}, fileProblem(fmt.Sprintf("is larger than %d bytes", MaxConfigFileBytes))
	}
	// A file given with --config that holds no settings (empty, blank,
	// only comments, or a lone null document) is rejected: it is most often
	// a config file whose generating step failed, and the operator asked for
	// settings to be read (docs/configuration.md).
	noSettings := fileProblem(ReasonNoSettings)
	if len(bytes.TrimSpace(data)) == 0 {
		return fileConfig{}, noSettings
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return fileConfig{}, noSettings // comments and blank lines only
		}
		return fileConfig{}, fileProblem("is not valid YAML")
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return fileConfig{}, fileProblem("must hold exactly one YAML document")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return fileConfig{}, fileProblem("must be a YAML mapping of setting names to values")
	}
	if line := aliasLine(&doc); line > 0 {
		return fileConfig{}, fileProblem(fmt.Sprintf("uses a YAML alias (*name) or merge key (<<) at line %d: write each value in full; "+
			"top-level settings are already the defaults of every scope", line))
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.Tag == "!!null" {
		return fileConfig{}, noSettings // "---", "~" or "null" alone
	}
	if m.Kind != yaml.MappingNode {
		return fileConfig{}, fileProblem("must be a YAML mapping of setting names to values")
	}
	if len(m.Content) == 0 {
		return fileConfig{}, noSettings // "{}"
	}
	fc := fileConfig{values: map[string]string{}}
	var probs []Problem
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			probs = append(probs, Problem{ClassUnknownKey, fmt.Sprintf("at line %d", k.Line), SourceFile, "keys must be setting names"})
			continue
		}
		if k.Value == ScopesKey {
			if seen[ScopesKey] {
				probs = append(probs, Problem{ClassInvalidValue, ScopesKey, SourceFile, "is given more than once"})
				continue
			}
			seen[ScopesKey] = true
			var sp []Problem
			fc.scopes, sp = parseScopes(v)
			fc.hasScopes = true
			probs = append(probs, sp...)
			continue
		}
		key := settingKey(k.Value)
		s, known := Lookup(key)
		if !known || !validKeyText(key) {
			label := key
			if !validKeyText(key) {
				label = fmt.Sprintf("at line %d", k.Line)
			}
			probs = append(probs, Problem{ClassUnknownKey, label, SourceFile, unknownReason(key, validKeyText(key))})
			continue
		}
		if seen[key] {
			probs = append(probs, Problem{ClassInvalidValue, key, SourceFile, "is given more than once"})
			continue
		}
		seen[key] = true
		if s.FlagOnly {
			probs = append(probs, Problem{ClassFlagOnly, key, SourceFile, "may only be given as the command-line flag --" + key})
			continue
		}
		val, ok := scalarFor(s.Kind, v)
		if !ok {
			probs = append(probs, Problem{ClassWrongType, key, SourceFile, "must be a YAML " + expectedYAML(s)})
			continue
		}
		fc.values[key] = val
	}
	return fc, probs
}

// aliasLine returns the line of the first YAML alias (*name) or merge key
// (<<) in n, or 0. Neither is read: an alias node is no scalar, mapping or
// list of its own, so each setting's type check refused it with a wrong
// type ("must be a YAML string" for a string alias), and a merge key would
// bring in keys that the one-key-once rule never sees. Anchors (&name)
// alone change nothing and are accepted.
func aliasLine(n *yaml.Node) int {
	if n.Kind == yaml.AliasNode || (n.Kind == yaml.ScalarNode && n.Tag == "!!merge") {
		return n.Line
	}
	for _, c := range n.Content {
		if l := aliasLine(c); l > 0 {
			return l
		}
	}
	return 0
}

// validKeyText reports whether a config key is safe to echo in a
// diagnostic: setting names are short lower-case words with dashes.
func validKeyText(k string) bool {
	if len(k) == 0 || len(k) > 40 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ParseTags parses the raw value of a KindTags setting: KEY=VALUE pairs,
// one per line (blank lines ignored); the key ends at the first "=". The
// reason for a rejection never quotes the input.
func ParseTags(v string) (map[string]string, string) {
	m := map[string]string{}
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, "must be KEY=VALUE pairs (a pair has no \"=\")"
		}
		if _, dup := m[k]; dup {
			return nil, "must not give one tag key twice"
		}
		m[k] = val
	}
	if len(m) == 0 {
		return nil, "must hold at least one KEY=VALUE pair"
	}
	return m, ""
}

// ParseList parses the raw value of a KindList setting: names separated by
// newlines or commas, each trimmed of spaces; empty entries are ignored.
func ParseList(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// scalarFor is the raw value of a config-file node for a setting of kind
// k, and whether the node is of a type the kind accepts (its row of
// kinds).
func scalarFor(k Kind, n *yaml.Node) (string, bool) { return kinds[k].fromYAML(n) }

// tagsFor turns a YAML mapping of tag keys to values into the raw KindTags
// value (pairs sorted by key). Keys and values are text, so, as for every
// text setting, they must be YAML strings: cost: 42, on: true or a date are
// the wrong type (quote them: cost: "42"), because YAML gives such scalars
// a type and the text the operator meant is a guess (042, 1e3, 0x10 and
// yes read as numbers or booleans elsewhere). A key or value holding "="
// before the key's end or a newline cannot be expressed and is refused.
func tagsFor(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return "", false
	}
	pairs := make([]string, 0, len(n.Content)/2)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode || k.Tag != "!!str" || v.Tag != "!!str" ||
			strings.ContainsAny(k.Value, "=\n") || strings.Contains(v.Value, "\n") || seen[k.Value] {
			return "", false
		}
		seen[k.Value] = true
		pairs = append(pairs, k.Value+"="+v.Value)
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "\n"), true
}

// listFor turns a YAML sequence of strings into the raw KindList value
// (newline-joined, in the file's order). Every entry must be a YAML string
// without a newline or comma (the separators of the raw value; no secret
// name holds one). A YAML string is accepted as it is: names separated by
// commas, as the environment variable takes them (ParseList).
func listFor(n *yaml.Node) (string, bool) { return sequenceFor(n, "\n") }
