package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// explain turns the library's verdict on v into an error naming the
// offending field by its path ("a.b[2]"), so the model can fix its call.
// The library decides; explain only finds the field the verdict is about
// (the verdict names a place in the schema, not in v) and says what is
// wrong there in the words the model reads. A verdict it cannot place is
// passed on as the library worded it.
func explain(root *jsonschema.Schema, v any, verdict error) error {
	ptr, detail := splitVerdict(verdict.Error())
	node, inst, path, ok := locate(root, v, ptr)
	if !ok {
		return fieldErr(path, "%s", detail)
	}
	keyword, _, _ := strings.Cut(detail, ": ")
	switch {
	case keyword == "type":
		return fieldErr(path, "expected %s, got %s", typeName(node), describe(inst))
	case keyword == "enum":
		return fieldErr(path, "must be one of %s, got %s", enumList(node.Enum), describe(inst))
	case keyword == "required":
		return missingField(node, inst, path, detail)
	case strings.HasPrefix(detail, "unexpected additional properties"):
		return unknownField(node, inst, path, detail)
	}
	if err := bound(node, keyword, inst, path); err != nil {
		return err
	}
	return fieldErr(path, "%s", detail)
}

// splitVerdict separates the library's "validating <schema path>: "
// prefixes from what failed, and returns the innermost path ("" for the
// root) with it.
func splitVerdict(msg string) (ptr, detail string) {
	for strings.HasPrefix(msg, "validating ") {
		rest := msg[len("validating "):]
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		ptr, msg = rest[:i], rest[i+2:]
	}
	if ptr == "root" {
		ptr = ""
	}
	return ptr, msg
}

// locate follows the schema path ptr from root, and v beside it, to the
// schema node the verdict is about, the value there and its path in v. ok
// is false where the schema path leaves properties and items (allOf, $ref
// and the like); path is then as far as it got.
func locate(root *jsonschema.Schema, v any, ptr string) (node *jsonschema.Schema, inst any, path string, ok bool) {
	node, inst = root, v
	if ptr == "" {
		return node, inst, "", true
	}
	if !strings.HasPrefix(ptr, "/") {
		return node, inst, "", false
	}
	segs := strings.Split(ptr[1:], "/")
	for i := 0; i < len(segs); i++ {
		var next *jsonschema.Schema
		var at string
		switch segs[i] {
		case "properties":
			if i+1 == len(segs) {
				return node, inst, path, false
			}
			i++
			name := unescapePointer(segs[i])
			obj, isObj := inst.(map[string]any)
			next, at = node.Properties[name], joinPath(path, name)
			if !isObj || next == nil {
				return node, inst, path, false
			}
			inst = obj[name]
		case "items":
			arr, isArr := inst.([]any)
			next = node.Items
			if !isArr || next == nil || len(node.PrefixItems) > len(arr) {
				return node, inst, path, false
			}
			n := len(node.PrefixItems)
			idx := firstFailing(next, arr[n:])
			if idx < 0 {
				return node, inst, path, false
			}
			inst, at = arr[n+idx], fmt.Sprintf("%s[%d]", path, n+idx)
		case "additionalProperties":
			obj, isObj := inst.(map[string]any)
			next = node.AdditionalProperties
			if !isObj || next == nil {
				return node, inst, path, false
			}
			extra := additional(node, obj)
			idx := firstFailing(next, mapValues(obj, extra))
			if idx < 0 {
				return node, inst, path, false
			}
			inst, at = obj[extra[idx]], joinPath(path, extra[idx])
		default:
			return node, inst, path, false
		}
		node, path = next, at
	}
	return node, inst, path, true
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// firstFailing is the index of the first of values that s refuses, or -1.
// It resolves s on its own, which fails for a schema referring outside
// itself: then it is -1 too.
func firstFailing(s *jsonschema.Schema, values []any) int {
	rs, err := s.Resolve(nil)
	if err != nil {
		return -1
	}
	return slices.IndexFunc(values, func(v any) bool { return rs.Validate(v) != nil })
}

// additional are obj's sorted keys that no property or pattern of s names.
func additional(s *jsonschema.Schema, obj map[string]any) []string {
	var patterns []*regexp.Regexp
	for p := range s.PatternProperties {
		if re, err := regexp.Compile(p); err == nil {
			patterns = append(patterns, re)
		}
	}
	return slices.DeleteFunc(sortedKeys(obj), func(k string) bool {
		_, named := s.Properties[k]
		return named || slices.ContainsFunc(patterns, func(re *regexp.Regexp) bool { return re.MatchString(k) })
	})
}

func mapValues(obj map[string]any, keys []string) []any {
	values := make([]any, len(keys))
	for i, k := range keys {
		values[i] = obj[k]
	}
	return values
}

func missingField(s *jsonschema.Schema, inst any, path, detail string) error {
	obj, _ := inst.(map[string]any)
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			return fmt.Errorf("missing required field %q", joinPath(path, name))
		}
	}
	return fieldErr(path, "%s", detail)
}

func unknownField(s *jsonschema.Schema, inst any, path, detail string) error {
	obj, _ := inst.(map[string]any)
	extra := additional(s, obj)
	if len(extra) == 0 {
		return fieldErr(path, "%s", detail)
	}
	allowed := "none"
	if len(s.Properties) > 0 {
		allowed = strings.Join(sortedKeys(s.Properties), ", ")
	}
	return fmt.Errorf("unknown field %q (allowed: %s)", joinPath(path, extra[0]), allowed)
}

// bound words a failed length or numeric bound; nil for other keywords.
func bound(s *jsonschema.Schema, keyword string, inst any, path string) error {
	str, _ := inst.(string)
	n := utf8.RuneCountInString(str)
	switch {
	case keyword == "minLength" && s.MinLength != nil:
		return fieldErr(path, "must be at least %d characters long, got %d", *s.MinLength, n)
	case keyword == "maxLength" && s.MaxLength != nil:
		return fieldErr(path, "must be at most %d characters long, got %d", *s.MaxLength, n)
	case keyword == "minimum" && s.Minimum != nil:
		return fieldErr(path, "must be >= %v, got %s", *s.Minimum, numberText(inst))
	case keyword == "maximum" && s.Maximum != nil:
		return fieldErr(path, "must be <= %v, got %s", *s.Maximum, numberText(inst))
	case keyword == "exclusiveMinimum" && s.ExclusiveMinimum != nil:
		return fieldErr(path, "must be > %v, got %s", *s.ExclusiveMinimum, numberText(inst))
	case keyword == "exclusiveMaximum" && s.ExclusiveMaximum != nil:
		return fieldErr(path, "must be < %v, got %s", *s.ExclusiveMaximum, numberText(inst))
	}
	return nil
}

func fieldErr(path, format string, args ...any) error {
	if path == "" {
		return fmt.Errorf("arguments: "+format, args...)
	}
	return fmt.Errorf("field %q: "+format, append([]any{path}, args...)...)
}

func typeName(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	return strings.Join(s.Types, " or ")
}

// jsonType names a value as numbers made it (int64, float64) by its JSON
// Schema type.
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
	case int64:
		return "integer"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func numberText(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// describe names a value's type, with the value itself for scalars.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > 40 {
			return "string"
		}
		return fmt.Sprintf("string %q", x)
	case int64, float64:
		return jsonType(v) + " " + numberText(v)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	}
	return jsonType(v)
}

func enumList(values []any) string {
	parts := make([]string, len(values))
	for i, v := range values {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}
