package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var files embed.FS

// Files maps each schema name (a file's schema_version) to its schema's
// file in this directory.
var Files = map[string]string{
	"sops-aws-sync/plan/v3":    "plan-v3.schema.json",
	"sops-aws-sync/plan/v2":    "plan-v2.schema.json",
	"sops-aws-sync/plan/v1":    "plan-v1.schema.json",
	"sops-aws-sync/report/v1":  "report-v1.schema.json",
	"sops-aws-sync/changes/v1": "changes-v1.schema.json",
}

// baseURL is every schema's $id prefix.
const baseURL = "https://github.com/sops-aws-sync/sops-aws-sync/schemas/"

var compiled = sync.OnceValues(compileAll)

func compileAll() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, file := range Files {
		doc, err := Raw(file)
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(baseURL+file, doc); err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", file, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for name, file := range Files {
		s, err := c.Compile(baseURL + file)
		if err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", file, err)
		}
		out[name] = s
	}
	return out, nil
}

// Raw returns the decoded JSON of the schema file (a name of Files'
// values) as the validator reads it: objects as map[string]any, numbers
// as json.Number.
func Raw(file string) (any, error) {
	b, err := files.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("schemas: %w", err)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// Validate checks data, one file the tool wrote, against the schema its
// schema_version names. Errors: data is not a JSON object with a string
// schema_version, its schema_version has no schema here, or the document
// breaks the schema (the validator's message names the JSON pointer of
// each failing part and which keyword failed; it may quote the document,
// so callers show it only in tests).
func Validate(data []byte) error {
	var head struct {
		SchemaVersion string `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.SchemaVersion == "" {
		return errors.New("schemas: not a JSON object with a string schema_version")
	}
	return ValidateAs(head.SchemaVersion, data)
}

// ValidateAs checks data against the schema of the schema name given,
// whatever data's own schema_version says.
func ValidateAs(name string, data []byte) error {
	all, err := compiled()
	if err != nil {
		return err
	}
	s, ok := all[name]
	if !ok {
		return fmt.Errorf("schemas: no schema for %q", name)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("schemas: %w", err)
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("schemas: %s: %w", strings.TrimSuffix(Files[name], ".schema.json"), err)
	}
	return nil
}
