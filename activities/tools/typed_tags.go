package tools

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ToolTag is the struct tag key whose settings New adds to an argument's
// schema: `tool:"enum=celsius|fahrenheit"`, `tool:"minimum=1,maximum=7"`.
// Settings are comma-separated key=value pairs; "pattern", which may hold
// commas, must come last. On a slice or array, minItems and maxItems bound
// the array and every other setting applies to its items.
const ToolTag = "tool"

// arrayKeys are the tool tag settings that bound the array itself.
var arrayKeys = []string{"minItems", "maxItems"}

// applyToolTags walks t's struct fields beside s's properties (as
// jsonschema.For made them) and applies each field's tool tag.
func applyToolTags(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return applyToolTags(t.Elem(), s.Items)
	case reflect.Map:
		return applyToolTags(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		return applyFieldTags(t, s)
	}
	return nil
}

func applyFieldTags(t reflect.Type, s *jsonschema.Schema) error {
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, ok := jsonName(f)
		prop := s.Properties[name]
		if !ok || prop == nil {
			continue
		}
		if tag, ok := f.Tag.Lookup(ToolTag); ok {
			if err := applyTag(prop, tag); err != nil {
				return fmt.Errorf("field %s.%s: tool tag %q: %w", t, f.Name, tag, err)
			}
		}
		if err := applyToolTags(f.Type, prop); err != nil {
			return err
		}
	}
	return nil
}

// jsonName is the property name encoding/json gives f; false when it
// skips f.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name, true
	}
	return f.Name, true
}

func applyTag(s *jsonschema.Schema, tag string) error {
	for tag != "" {
		var setting string
		if strings.HasPrefix(tag, "pattern=") {
			setting, tag = tag, ""
		} else {
			setting, tag, _ = strings.Cut(tag, ",")
		}
		key, value, ok := strings.Cut(strings.TrimSpace(setting), "=")
		if !ok {
			return fmt.Errorf("setting %q is not key=value", setting)
		}
		target := s
		if s.Items != nil && !slices.Contains(arrayKeys, key) {
			target = s.Items
		}
		if err := applySetting(target, key, value); err != nil {
			return err
		}
	}
	return nil
}

func applySetting(s *jsonschema.Schema, key, value string) error {
	switch key {
	case "enum":
		return setEnum(s, value)
	case "pattern":
		s.Pattern = value
		return nil
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		*floatField(s, key) = &f
		return nil
	case "minLength", "maxLength", "minItems", "maxItems":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return fmt.Errorf("%s must be a non-negative integer, got %q", key, value)
		}
		*intField(s, key) = &n
		return nil
	}
	return fmt.Errorf("unknown setting %q (known: enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum, "+
		"minLength, maxLength, pattern, minItems, maxItems)", key)
}

func floatField(s *jsonschema.Schema, key string) **float64 {
	switch key {
	case "minimum":
		return &s.Minimum
	case "maximum":
		return &s.Maximum
	case "exclusiveMinimum":
		return &s.ExclusiveMinimum
	}
	return &s.ExclusiveMaximum
}

func intField(s *jsonschema.Schema, key string) **int {
	switch key {
	case "minLength":
		return &s.MinLength
	case "maxLength":
		return &s.MaxLength
	case "minItems":
		return &s.MinItems
	}
	return &s.MaxItems
}

// setEnum parses "a|b|c" as values of s's type.
func setEnum(s *jsonschema.Schema, list string) error {
	typ := s.Type
	if typ == "" { // a pointer: ["null", T]
		others := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(others) == 1 {
			typ = others[0]
		}
	}
	s.Enum = nil
	for v := range strings.SplitSeq(list, "|") {
		x, err := enumValue(typ, v)
		if err != nil {
			return fmt.Errorf("enum value %q: %w", v, err)
		}
		s.Enum = append(s.Enum, x)
	}
	return nil
}

func enumValue(typ, v string) (any, error) {
	switch typ {
	case "string":
		return v, nil
	case "integer":
		return strconv.ParseInt(v, 10, 64)
	case "number":
		return strconv.ParseFloat(v, 64)
	case "boolean":
		return strconv.ParseBool(v)
	}
	return nil, errors.New("enum needs a field of string, integer, number or boolean type")
}
