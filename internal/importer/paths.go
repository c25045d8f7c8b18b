package importer

import (
	"errors"
	"path"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Reasons a name does not map back to a document path (DocumentStem).
// They never quote the name.
var (
	ErrOutsidePrefix = errors.New("the name is not under the scope's prefix")
	ErrNameRule      = errors.New("the name breaks the secret-name rule")
	ErrSegment       = errors.New("the name holds an empty, '.' or '..' path segment, or a segment longer than 255 bytes")
	ErrReservedPath  = errors.New("the name maps into .git or onto a SOPS configuration file")
)

// maxSegmentBytes is the longest file name the usual file systems take
// (ext4, APFS, NTFS: 255).
const maxSegmentBytes = 255

// DocumentStem is the inverse of the name rule (SPEC §3.4, §18): the
// repo-relative, slash-separated path of the document that maps to the
// secret name, without its suffix: sourceRoot + "/" + (name − prefix − "/")
// ("." as source root: the relative name alone). The document at stem +
// suffix maps back to name for every suffix of model.Suffixes
// (model.SecretName). It fails with one of the Err* reasons of this file
// when no document can: the name is not below prefix, breaks the name
// rule, holds a segment a file system cannot hold, or would reach into
// .git or onto a SOPS configuration file.
func DocumentStem(prefix, sourceRoot, name string) (string, error) {
	if model.ValidateName(name) != nil {
		return "", ErrNameRule
	}
	rel, ok := strings.CutPrefix(name, prefix+"/")
	if !ok || rel == "" {
		return "", ErrOutsidePrefix
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." || len(seg)+len(".sops.json") > maxSegmentBytes {
			return "", ErrSegment
		}
		if strings.EqualFold(seg, ".git") {
			return "", ErrReservedPath
		}
	}
	stem := rel
	if sourceRoot != "." {
		stem = sourceRoot + "/" + rel
	}
	if path.Clean(stem) != stem {
		return "", ErrSegment
	}
	for _, s := range model.Suffixes {
		if model.IsSOPSConfig(stem+s.Suffix) || model.SecretName(prefix, rel+s.Suffix, s.Suffix) != name {
			return "", ErrReservedPath
		}
	}
	return stem, nil
}
