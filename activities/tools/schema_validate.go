package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// validate checks a value decoded with UseNumber. Errors name the offending
// field by its path ("a.b[2]"), so the model can fix its call.
func (s *schema) validate(v any, path string) error {
	if !s.typeMatches(v) {
		return fieldErr(path, "expected %s, got %s", s.typ, describe(v))
	}
	if s.enum != nil && !s.inEnum(v) {
		return fieldErr(path, "must be one of %s, got %s", enumList(s.enum), describe(v))
	}
	switch x := v.(type) {
	case map[string]any:
		return s.validateObject(x, path)
	case []any:
		return s.validateArray(x, path)
	case string:
		return s.validateString(x, path)
	case json.Number:
		return s.validateNumber(x, path)
	}
	return nil
}

func (s *schema) typeMatches(v any) bool {
	switch s.typ {
	case "":
		return true
	case "integer":
		n, ok := v.(json.Number)
		return ok && isInteger(n)
	case "number":
		_, ok := v.(json.Number)
		return ok
	}
	return s.typ == jsonType(v)
}

func (s *schema) inEnum(v any) bool {
	n := normalize(v)
	return slices.ContainsFunc(s.enum, func(e any) bool { return reflect.DeepEqual(e, n) })
}

func (s *schema) validateObject(obj map[string]any, path string) error {
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			return fmt.Errorf("missing required field %q", joinPath(path, name))
		}
	}
	for _, name := range sortedKeys(obj) {
		child, ok := s.properties[name]
		if !ok && s.closed {
			return fmt.Errorf("unknown field %q (allowed: %s)", joinPath(path, name), s.allowedFields())
		}
		if ok {
			if err := child.validate(obj[name], joinPath(path, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *schema) allowedFields() string {
	if len(s.properties) == 0 {
		return "none"
	}
	return strings.Join(sortedKeys(s.properties), ", ")
}

func (s *schema) validateArray(arr []any, path string) error {
	if s.items == nil {
		return nil
	}
	for i, v := range arr {
		if err := s.items.validate(v, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

func (s *schema) validateString(str string, path string) error {
	n := utf8.RuneCountInString(str)
	if s.minLength != nil && n < *s.minLength {
		return fieldErr(path, "must be at least %d characters long, got %d", *s.minLength, n)
	}
	if s.maxLength != nil && n > *s.maxLength {
		return fieldErr(path, "must be at most %d characters long, got %d", *s.maxLength, n)
	}
	return nil
}

func (s *schema) validateNumber(num json.Number, path string) error {
	f, err := num.Float64()
	if err != nil || math.IsInf(f, 0) {
		return fieldErr(path, "number %s is out of range", num)
	}
	if s.minimum != nil && f < *s.minimum {
		return fieldErr(path, "must be >= %v, got %s", *s.minimum, num)
	}
	if s.maximum != nil && f > *s.maximum {
		return fieldErr(path, "must be <= %v, got %s", *s.maximum, num)
	}
	return nil
}

func fieldErr(path, format string, args ...any) error {
	if path == "" {
		return fmt.Errorf("arguments: "+format, args...)
	}
	return fmt.Errorf("field %q: "+format, append([]any{path}, args...)...)
}

// isInteger accepts literals Go can decode into an int64, so a tool that
// unmarshals an "integer" into an int never fails on a value that passed.
func isInteger(n json.Number) bool {
	_, err := strconv.ParseInt(n.String(), 10, 64)
	return err == nil
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if isInteger(x) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// describe names a value's type, with the value itself for scalars.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > 40 {
			return "string"
		}
		return fmt.Sprintf("string %q", x)
	case json.Number, bool:
		return fmt.Sprintf("%s %v", jsonType(v), x)
	}
	return jsonType(v)
}

// normalize turns json.Number into float64 (recursively) so that equal JSON
// values compare equal with reflect.DeepEqual.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

func enumList(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
