package chaos

import (
	"bytes"
	"math/rand/v2"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// WholeShare is the chance that a scenario holds whole-value documents
// when GenOptions.Whole is on.
const WholeShare = 0.5

// wholeStyle is how one secret name's whole value is written: PEM-like
// text with CRLF or LF line ends and with or without a final line end.
type wholeStyle struct {
	crlf, trailing bool
}

// wholeValue is the whole value standing for a structured document's
// canonical value c: PEM-like text around c (c is JSON, so UTF-8 without
// BOM), or bytes that are not UTF-8 around it. The value canaries inside c
// stay readable, so the scans still find them if one leaks; and the whole
// value changes exactly when c does.
func wholeValue(c []byte, f canonical.Format, st wholeStyle) []byte {
	if f == canonical.Binary {
		return append(append([]byte{0xfe, 0xed, 0xfe, 0xed, 0, 0xff, '\r', '\n'}, c...), 0, 0xef, 0xbb, 0xbf)
	}
	nl := "\n"
	if st.crlf {
		nl = "\r\n"
	}
	s := "-----BEGIN CHAOS VALUE-----" + nl + string(c) + nl + "-----END CHAOS VALUE-----"
	if st.trailing {
		s += nl
	}
	return []byte(s)
}

// drawWhole gives WholeShare of the scenarios whole-value documents (SPEC
// §3.1): about half of the secret names the revisions hold become
// .sops.txt or .sops.bin in every revision (same stem, so the same secret
// and source), each revision drawing the kind again (a switch between
// string and binary is an update), the value derived from the structured
// document's so that it changes exactly when that one does. Versions of
// the Pre state that hold a document's canonical value (what an earlier
// sync wrote) are rewritten to the whole value in the field of its kind,
// so an earlier sync of a whole value is modelled too. Its own random
// stream: turning it on changes nothing else in a scenario.
func drawWhole(r *rand.Rand, s *Scenario) {
	if r.Float64() >= WholeShare {
		return
	}
	names := map[string]bool{}
	for _, rev := range s.Revisions {
		for _, d := range rev.Docs {
			names[SecretName(s.Scope, d.Path)] = true
		}
	}
	chosen := map[string]wholeStyle{}
	for _, n := range sortedKeys(names) {
		if r.IntN(2) == 0 {
			chosen[n] = wholeStyle{crlf: r.IntN(2) == 0, trailing: r.IntN(3) != 0}
		}
	}
	if len(chosen) == 0 {
		return
	}
	// canonical value → the whole value an earlier sync wrote, per name.
	type written struct {
		value  []byte
		binary bool
	}
	pre := map[string]map[string]written{}
	for i := range s.Revisions {
		docs := map[string]Doc{}
		for _, path := range sortedKeys(s.Revisions[i].Docs) {
			d := s.Revisions[i].Docs[path]
			n := SecretName(s.Scope, d.Path)
			st, ok := chosen[n]
			if !ok {
				docs[path] = d
				continue
			}
			f := canonical.Text
			if r.IntN(2) == 0 {
				f = canonical.Binary
			}
			v := wholeValue(d.Canon, f, st)
			if pre[n] == nil {
				pre[n] = map[string]written{}
			}
			if _, seen := pre[n][string(d.Canon)]; !seen {
				pre[n][string(d.Canon)] = written{value: v, binary: f == canonical.Binary}
			}
			suffix := ".sops.txt"
			if f == canonical.Binary {
				suffix = ".sops.bin"
			}
			nd := Doc{Path: stemOf(d.Path) + suffix, Format: f, Plain: v, Canon: bytes.Clone(v), Planted: d.Planted}
			docs[nd.Path] = nd
		}
		s.Revisions[i].Docs = docs
	}
	for i := range s.Pre {
		p := &s.Pre[i]
		if p.Foreign {
			continue
		}
		for j, v := range p.Versions {
			if v.String == nil {
				continue
			}
			if w, ok := pre[p.Name][*v.String]; ok {
				if w.binary {
					p.Versions[j] = PreVersion{Binary: w.value}
				} else {
					str := string(w.value)
					p.Versions[j] = PreVersion{String: &str}
				}
			}
		}
	}
	s.Changes["whole-value-names"] += len(chosen)
}

// stemOf is path without its document suffix.
func stemOf(path string) string {
	for _, suf := range model.Suffixes {
		if strings.HasSuffix(path, suf.Suffix) {
			return strings.TrimSuffix(path, suf.Suffix)
		}
	}
	return path
}

// valueKey is a version's value with the field that holds it: "s:" and the
// SecretString, "b:" and the SecretBinary, or "" for neither or both.
func valueKey(str *string, bin []byte) string {
	switch {
	case str != nil && bin == nil:
		return "s:" + *str
	case str == nil && bin != nil:
		return "b:" + string(bin)
	}
	return ""
}

// docKey is valueKey of what the tool must store for d.
func docKey(d Doc) string {
	if d.Format == canonical.Binary {
		return "b:" + string(d.Canon)
	}
	return "s:" + string(d.Canon)
}
