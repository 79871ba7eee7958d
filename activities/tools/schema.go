package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// schema is a compiled subset of JSON Schema: type (object, string, integer,
// number, boolean, array), properties, required, enum, items,
// additionalProperties:false, minimum/maximum and minLength/maxLength.
// Other keywords (description, default, ...) are accepted and not enforced.
type schema struct {
	typ        string // "" accepts any type
	properties map[string]*schema
	required   []string
	enum       []any // normalized values; nil means no enum
	items      *schema
	closed     bool // additionalProperties: false
	minimum    *float64
	maximum    *float64
	minLength  *int
	maxLength  *int
}

type rawSchema struct {
	Type                 *string                    `json:"type"`
	Properties           map[string]json.RawMessage `json:"properties"`
	Required             []string                   `json:"required"`
	Enum                 []json.RawMessage          `json:"enum"`
	Items                json.RawMessage            `json:"items"`
	AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	Minimum              *float64                   `json:"minimum"`
	Maximum              *float64                   `json:"maximum"`
	MinLength            *int                       `json:"minLength"`
	MaxLength            *int                       `json:"maxLength"`
}

var schemaTypes = []string{"object", "string", "integer", "number", "boolean", "array"}

// compileSchema parses a schema document.
func compileSchema(doc json.RawMessage) (*schema, error) {
	return compileAt(doc, "")
}

func compileAt(doc json.RawMessage, path string) (*schema, error) {
	var raw rawSchema
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, schemaErr(path, "%v", err)
	}
	s := &schema{
		required: raw.Required, minimum: raw.Minimum, maximum: raw.Maximum,
		minLength: raw.MinLength, maxLength: raw.MaxLength,
	}
	if raw.Type != nil {
		if !slices.Contains(schemaTypes, *raw.Type) {
			return nil, schemaErr(path, "unsupported type %q", *raw.Type)
		}
		s.typ = *raw.Type
	}
	if err := s.compileChildren(raw, path); err != nil {
		return nil, err
	}
	return s, s.compileEnum(raw.Enum, path)
}

func (s *schema) compileChildren(raw rawSchema, path string) error {
	if len(raw.Properties) > 0 {
		s.properties = make(map[string]*schema, len(raw.Properties))
	}
	for _, name := range sortedKeys(raw.Properties) { // sorted: deterministic errors
		child, err := compileAt(raw.Properties[name], joinPath(path, name))
		if err != nil {
			return err
		}
		s.properties[name] = child
	}
	if len(raw.Items) > 0 {
		items, err := compileAt(raw.Items, path+"[]")
		if err != nil {
			return err
		}
		s.items = items
	}
	s.closed = bytes.Equal(bytes.TrimSpace(raw.AdditionalProperties), []byte("false"))
	return nil
}

func (s *schema) compileEnum(values []json.RawMessage, path string) error {
	if values == nil {
		return nil
	}
	if len(values) == 0 {
		return schemaErr(path, "enum is empty")
	}
	for _, v := range values {
		x, err := decodeValue(v)
		if err != nil {
			return schemaErr(path, "enum: %v", err)
		}
		s.enum = append(s.enum, normalize(x))
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
// (absent arguments become {}).
func (s *schema) validateJSON(raw json.RawMessage) (json.RawMessage, error) {
	raw = normalizeArgs(raw)
	if !json.Valid(raw) {
		return nil, invalidArgs(errors.New("arguments are not valid JSON"))
	}
	v, err := decodeValue(raw)
	if err != nil {
		return nil, invalidArgs(fmt.Errorf("arguments are not valid JSON: %w", err))
	}
	if err := s.validate(v, ""); err != nil {
		return nil, invalidArgs(err)
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

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
