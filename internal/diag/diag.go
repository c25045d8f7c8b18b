package diag

import (
	"log/slog"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Origin says where a setting named by a Subject came from.
type Origin int

// Origins of a setting, lowest precedence first (SPEC §2.1).
const (
	OriginDefault Origin = iota
	OriginFile
	OriginEnv
	OriginFlag
)

// Subject is what a diagnostic is about: a document (Ordinal, and Path only
// when resource names may be shown), or a setting (Setting and its Origin),
// or nothing (the zero Subject: the whole run). It never holds a value.
type Subject struct {
	// Ordinal is the 1-based position of the document among the selected
	// documents sorted by repo path; 0 when no document is at fault.
	Ordinal int
	// Path is the document's repo-relative path, set only when
	// --show-resource-names allows it.
	Path string
	// Setting is a flag name (without dashes), an environment variable
	// name, or a config-file key; "" when no setting is at fault. For
	// OriginFile with Setting "", the config file as a whole is meant.
	Setting string
	// Origin is where Setting came from.
	Origin Origin
}

// Document is the subject of document ordinal; path is kept only when show
// (--show-resource-names) is set.
func Document(ordinal int, path string, show bool) Subject {
	s := Subject{Ordinal: ordinal}
	if show {
		s.Path = path
	}
	return s
}

// IsDocument reports whether the subject is a document.
func (s Subject) IsDocument() bool { return s.Ordinal > 0 || s.Path != "" }

// Label is the document's name as logs show it: its path when set, else
// its resource label (model.Redaction).
func (s Subject) Label() string {
	return model.Redaction{ShowNames: s.Path != ""}.Label(s.Ordinal, s.Path)
}

// Name is the subject in one phrase, as the plan file's diagnostics carry
// it: a document's label (ordinal, or path when shown), a setting as
// stderr names it ("flag --secret-prefix"), or "" for the whole run.
func (s Subject) Name() string {
	if s.IsDocument() {
		return s.Label()
	}
	return s.where()
}

// where names a setting subject as stderr shows it ("flag --secret-prefix",
// "environment variable SOPS_AWS_SYNC_X", "config file key x").
func (s Subject) where() string {
	switch s.Origin {
	case OriginFlag:
		return "flag --" + s.Setting
	case OriginEnv:
		return "environment variable " + s.Setting
	case OriginFile:
		if s.Setting == "" {
			return "config file"
		}
		return "config file key " + s.Setting
	}
	if s.Setting == "" {
		return ""
	}
	return "setting --" + s.Setting
}

// Diagnostic is one user-facing problem. Build it with New (or At); the
// class must be registered (registry.go).
type Diagnostic struct {
	// Class is a registered class token ("decrypt:no-key").
	Class string
	// Summary says what is wrong, in a fixed sentence: the registry's
	// summary of the class unless the site that found it knows a more
	// precise one. A decrypt:* summary of a document no key opened adds
	// its keys' public identifiers and why each failed (SPEC §3.2), never
	// a value, key material or a provider's text.
	Summary string
	// Next is the operator's next action: the registry's, unless a lower
	// package that knows the precise rule broken supplied it with its
	// reason (canonical's plaintext rules, model's name rule).
	Next string
	// Subject is what the diagnostic is about.
	Subject Subject

	cause error // a context error for the interrupted class; never shown
}

// New returns the diagnostic of class about subject, with the registry's
// summary and next action. An unregistered class (a bug: registering it is
// part of adding it, docs/architecture.md "Adding a diagnostic class", and
// TestEveryClassLiteralIsRegistered finds the literal) fails closed: it
// keeps its token, gets the internal summary and next action, and exits 3.
func New(class string, subject Subject) Diagnostic {
	e, ok := Lookup(class)
	if !ok {
		e, _ = Lookup(Internal)
	}
	return Diagnostic{Class: class, Summary: e.Summary, Next: e.Next, Subject: subject}
}

// WithSummary returns d with a more precise summary (a fixed sentence).
func (d Diagnostic) WithSummary(summary string) Diagnostic {
	if summary != "" {
		d.Summary = summary
	}
	return d
}

// WithNext returns d with the next action a lower package chose for the
// precise rule broken (canonical, model); "" keeps the registry's.
func (d Diagnostic) WithNext(next string) Diagnostic {
	if next != "" {
		d.Next = next
	}
	return d
}

// WithCause returns d wrapping cause (only ever a context error, so that
// errors.Is(d, context.Canceled) holds); the cause is never rendered.
func (d Diagnostic) WithCause(cause error) Diagnostic {
	d.cause = cause
	return d
}

// Error is "<class>: document <label>: <summary>; <next>" for a document,
// "<class>: <setting>: <summary>; <next>" for a setting, and
// "<class>: <summary>; <next>" otherwise.
func (d Diagnostic) Error() string {
	return d.Class + ": " + d.Subject.prefix() + d.Sentence()
}

// prefix is "document <label>: ", "<setting>: " or "" (no subject).
func (s Subject) prefix() string {
	switch {
	case s.IsDocument():
		return "document " + s.Label() + ": "
	case s.where() != "":
		return s.where() + ": "
	}
	return ""
}

// Sentence is "<summary>; <next>" (the summary alone when there is no next
// action).
func (d Diagnostic) Sentence() string {
	if d.Next == "" {
		return d.Summary
	}
	return d.Summary + "; " + d.Next
}

// Unwrap returns the context error of an interrupted diagnostic, else nil.
func (d Diagnostic) Unwrap() error { return d.cause }

// ExitCode is the exit code of the class's family (FamilyExitCode).
func (d Diagnostic) ExitCode() int { return ExitCodeOf(d.Class) }

// Line is the stderr line of d: "sops-aws-sync: <subject>: <summary>
// (<class>)".
func (d Diagnostic) Line() string {
	return "sops-aws-sync: " + d.Subject.prefix() + d.Summary + " (" + d.Class + ")"
}

// Attrs are the log attributes of d: error_class, and resource when the
// subject is a document (its Label).
func (d Diagnostic) Attrs() []any {
	attrs := []any{slog.String(vocab.FieldErrorClass, d.Class)}
	if d.Subject.IsDocument() {
		attrs = append(attrs, slog.String(vocab.FieldResource, d.Subject.Label()))
	}
	return attrs
}

// Diagnostics are the problems of one run, in a stable order. A nil or
// empty Diagnostics is no error; use Err to return it as an error.
type Diagnostics []Diagnostic

// Err returns ds as an error, or nil when it is empty.
func (ds Diagnostics) Err() error {
	if len(ds) == 0 {
		return nil
	}
	return ds
}

// Error joins the problems' Error texts with "; ".
func (ds Diagnostics) Error() string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap lets errors.As find each Diagnostic and errors.Is its cause.
func (ds Diagnostics) Unwrap() []error {
	out := make([]error, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}

// Lines are the stderr lines of ds: one Line per problem, then one
// "next: <action>" per distinct next action, in first-seen order.
func (ds Diagnostics) Lines() []string {
	var lines, nexts []string
	seen := map[string]bool{}
	for _, d := range ds {
		lines = append(lines, d.Line())
		if d.Next != "" && !seen[d.Next] {
			seen[d.Next] = true
			nexts = append(nexts, "next: "+d.Next)
		}
	}
	return append(lines, nexts...)
}

// ExitCode is the exit code of the first problem (ExitInvalid when empty).
func (ds Diagnostics) ExitCode() int {
	if len(ds) == 0 {
		return vocab.ExitInvalid
	}
	return ds[0].ExitCode()
}

// Record is a Diagnostic as a file writes it: the plan file's
// {class, summary, next, subject} (SPEC §7.4, docs/results.md), every
// field a string. Subject is Subject.Name: a document's label (its
// ordinal, or its path only when resource names are shown), a setting as
// stderr names it, or "" for the whole run; Summary and Next are the fixed
// sentences of the Diagnostic. A Record read back from a file is taken as
// written: its class need not be registered (a file of a later release).
type Record struct {
	Class   string `json:"class"`
	Summary string `json:"summary"`
	Next    string `json:"next"`
	Subject string `json:"subject"`
}

// Record is d as a file writes it (its cause is never written).
func (d Diagnostic) Record() Record {
	return Record{Class: d.Class, Summary: d.Summary, Next: d.Next, Subject: d.Subject.Name()}
}

// Records are ds as a file writes them, in order; never nil (an empty
// list is written as [], not null).
func (ds Diagnostics) Records() []Record {
	out := make([]Record, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.Record())
	}
	return out
}

// IsWarning reports whether class is a warning: a class of the warning
// family ("warning:orphans"), which neither stops nor limits a run. Every
// other class is an error. Only the token's text is read, so an
// unregistered class of a file read back is judged the same way.
func IsWarning(class string) bool {
	return strings.HasPrefix(class, string(FamilyWarning)+":")
}
