package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// schema is a tool's Parameters, resolved by github.com/google/jsonschema-go
// (draft 2020-12, or draft-07 where "$schema" says so), which decides
// whether arguments are valid; explain says why they are not.
type schema struct {
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// jsonTypes are the types a schema may name.
var jsonTypes = []string{"null", "boolean", "object", "array", "number", "string", "integer"}

// compileSchema parses and resolves a schema document. Beyond what the
// library refuses, it refuses what would fail every call: an unknown type,
// an empty enum, a "$schema" the library cannot validate.
func compileSchema(doc json.RawMessage) (*schema, error) {
	var probe any
	if err := json.Unmarshal(doc, &probe); err != nil {
		return nil, schemaErr("", "%v", err)
	}
	if _, ok := probe.(map[string]any); !ok {
		return nil, schemaErr("", "must be a JSON object, got %s", describe(probe))
	}
	root := new(jsonschema.Schema)
	if err := json.Unmarshal(doc, root); err != nil {
		return nil, schemaErr("", "%v", err)
	}
	switch root.Schema {
	case "", "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
	default:
		return nil, schemaErr("", "unsupported $schema %q (use draft 2020-12 or draft-07)", root.Schema)
	}
	if err := lint(root, ""); err != nil {
		return nil, err
	}
	resolved, err := root.Resolve(nil)
	if err != nil {
		return nil, schemaErr("", "%v", err)
	}
	return &schema{root: root, resolved: resolved}, nil
}

// lint walks s and its subschemas for what no call could satisfy.
func lint(s *jsonschema.Schema, path string) error {
	if s == nil {
		return nil
	}
	for _, t := range append([]string{s.Type}, s.Types...) {
		if t != "" && !slices.Contains(jsonTypes, t) {
			return schemaErr(path, "unsupported type %q", t)
		}
	}
	if s.Enum != nil && len(s.Enum) == 0 {
		return schemaErr(path, "enum is empty")
	}
	for _, name := range sortedKeys(s.Properties) { // sorted: deterministic errors
		if err := lint(s.Properties[name], joinPath(path, name)); err != nil {
			return err
		}
	}
	if err := lint(s.Items, path+"[]"); err != nil {
		return err
	}
	// The other subschemas are reported at their parent's path.
	others := slices.Concat([]*jsonschema.Schema{s.AdditionalProperties, s.AdditionalItems, s.Contains,
		s.Not, s.If, s.Then, s.Else, s.PropertyNames, s.UnevaluatedItems, s.UnevaluatedProperties},
		s.PrefixItems, s.ItemsArray, s.AllOf, s.AnyOf, s.OneOf)
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.PatternProperties, s.DependentSchemas} {
		for _, k := range sortedKeys(m) {
			others = append(others, m[k])
		}
	}
	for _, c := range others {
		if err := lint(c, path); err != nil {
			return err
		}
	}
	return nil
}

func schemaErr(path, format string, args ...any) error {
	if path == "" {
		return invalidSchema(fmt.Errorf("schema: "+format, args...))
	}
	return invalidSchema(fmt.Errorf("schema at %q: "+format, append([]any{path}, args...)...))
}

// validateJSON checks raw arguments against s and returns them normalized
// (absent arguments become {}). A panic inside the library is an invalid
// call, not a crashed worker.
func (s *schema) validateJSON(raw json.RawMessage) (_ json.RawMessage, err error) {
	raw = normalizeArgs(raw)
	if !json.Valid(raw) {
		return nil, invalidArgs(errors.New("arguments are not valid JSON"))
	}
	v, err := decodeValue(raw)
	if err != nil {
		return nil, invalidArgs(fmt.Errorf("arguments are not valid JSON: %w", err))
	}
	if v, err = numbers(v, ""); err != nil {
		return nil, invalidArgs(err)
	}
	defer func() {
		if p := recover(); p != nil {
			err = invalidArgs(fmt.Errorf("arguments could not be validated: %v", p))
		}
	}()
	if verr := s.resolved.Validate(v); verr != nil {
		return nil, invalidArgs(explain(s.root, v, verr))
	}
	return raw, nil
}

// normalizeArgs maps absent arguments to an empty object, which is what
// providers mean when a tool takes no parameters.
func normalizeArgs(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{}`)
	}
	return raw
}

func decodeValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// numbers replaces each json.Number in v with an int64 when Go can decode
// it into one (so bounds compare exactly) and a float64 otherwise, which
// is how the library reads numbers; a number no float64 holds is refused.
func numbers(v any, path string) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, fieldErr(path, "number %s is out of range", x)
		}
		return f, nil
	case []any:
		for i, e := range x {
			n, err := numbers(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			n, err := numbers(x[k], joinPath(path, k))
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	}
	return v, nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
