package tools

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

const testSchema = `{
  "type": "object",
  "properties": {
    "name":  {"type": "string", "minLength": 2, "maxLength": 5},
    "count": {"type": "integer", "minimum": 1, "maximum": 10},
    "ratio": {"type": "number", "minimum": 0.5},
    "flag":  {"type": "boolean"},
    "color": {"type": "string", "enum": ["red", "green"]},
    "tags":  {"type": "array", "items": {"type": "string"}},
    "inner": {
      "type": "object",
      "properties": {"id": {"type": "integer"}},
      "required": ["id"],
      "additionalProperties": false
    },
    "any":   {"description": "no type: anything goes"}
  },
  "required": ["name"],
  "additionalProperties": false
}`

func TestValidatorAcceptsAndRejectsArguments(t *testing.T) {
	s, err := compileSchema(json.RawMessage(testSchema))
	require.NoError(t, err)
	tests := []struct {
		name string
		args string
		err  string // empty: valid
	}{
		{"minimal", `{"name":"ab"}`, ""},
		{"all fields", `{"name":"abc","count":3,"ratio":0.5,"flag":true,"color":"red","tags":["x"],"inner":{"id":1},"any":[null]}`, ""},
		{"multibyte length counts runes", `{"name":"ééééé"}`, ""},
		{"not json", `{"name":`, "arguments are not valid JSON"},
		{"trailing garbage", `{"name":"ab"} x`, "arguments are not valid JSON"},
		{"not an object", `["ab"]`, "arguments: expected object, got array"},
		{"null", `null`, "arguments: expected object, got null"},
		{"missing required", `{}`, `missing required field "name"`},
		{"unknown field", `{"name":"ab","extra":1}`, `unknown field "extra" (allowed: any, color, count, flag, inner, name, ratio, tags)`},
		{"wrong type", `{"name":5}`, `field "name": expected string, got integer 5`},
		{"too short", `{"name":"a"}`, `field "name": must be at least 2 characters long, got 1`},
		{"too long", `{"name":"abcdef"}`, `field "name": must be at most 5 characters long, got 6`},
		{"integer gets fraction", `{"name":"ab","count":1.5}`, `field "count": expected integer, got number 1.5`},
		{"integer gets 2.0", `{"name":"ab","count":2.0}`, ""}, // JSON Schema: a number with no fraction is an integer
		{"below minimum", `{"name":"ab","count":0}`, `field "count": must be >= 1, got 0`},
		{"above maximum", `{"name":"ab","count":11}`, `field "count": must be <= 10, got 11`},
		{"number minimum", `{"name":"ab","ratio":0.25}`, `field "ratio": must be >= 0.5, got 0.25`},
		{"number out of range", `{"name":"ab","ratio":1e999}`, `field "ratio": number 1e999 is out of range`},
		{"boolean", `{"name":"ab","flag":"yes"}`, `field "flag": expected boolean, got string "yes"`},
		{"enum", `{"name":"ab","color":"blue"}`, `field "color": must be one of "red", "green", got string "blue"`},
		{"array items", `{"name":"ab","tags":["x",2]}`, `field "tags[1]": expected string, got integer 2`},
		{"array type", `{"name":"ab","tags":"x"}`, `field "tags": expected array, got string "x"`},
		{"nested required", `{"name":"ab","inner":{}}`, `missing required field "inner.id"`},
		{"nested unknown", `{"name":"ab","inner":{"id":1,"x":2}}`, `unknown field "inner.x" (allowed: id)`},
		{"nested type", `{"name":"ab","inner":{"id":"1"}}`, `field "inner.id": expected integer, got string "1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.validateJSON(json.RawMessage(tt.args))
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.err)
		})
	}
}

func TestValidatorClosedObjectWithoutPropertiesAllowsNone(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object","additionalProperties":false}`))
	require.NoError(t, err)
	_, err = s.validateJSON(json.RawMessage(`{"a":1}`))
	require.EqualError(t, err, `unknown field "a" (allowed: none)`)
}

func TestValidatorTreatsEmptyArgumentsAsEmptyObject(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object"}`))
	require.NoError(t, err)
	for _, raw := range []string{"", "  "} {
		got, err := s.validateJSON(json.RawMessage(raw))
		require.NoError(t, err)
		require.JSONEq(t, `{}`, string(got))
	}
}

func TestValidatorEnumComparesNumbersByValue(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"n":{"enum":[1,2.5,{"a":[1]}]}}}`))
	require.NoError(t, err)
	for _, ok := range []string{`{"n":1.0}`, `{"n":2.5}`, `{"n":{"a":[1e0]}}`} {
		_, err := s.validateJSON(json.RawMessage(ok))
		require.NoError(t, err, ok)
	}
	_, err = s.validateJSON(json.RawMessage(`{"n":3}`))
	require.EqualError(t, err, `field "n": must be one of 1, 2.5, {"a":[1]}, got integer 3`)
}

func TestCompileSchemaRejectsWhatItCannotEnforce(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		err    string
	}{
		{"not json", `{`, "schema: unexpected end of JSON input"},
		{"not an object", `[]`, "schema: must be a JSON object, got array"},
		{"unknown type", `{"type":"date"}`, `schema: unsupported type "date"`},
		{"unknown type in list", `{"type":["string","uuid"]}`, `schema: unsupported type "uuid"`},
		{"type not a string", `{"type":5}`, `schema: invalid value for "type": "5"`},
		{"bad pattern", `{"type":"object","properties":{"a":{"pattern":"("}}}`, "missing closing )"},
		{"dangling ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}`, `JSON Pointer "/$defs/none"`},
		{"unsupported draft", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, `schema: unsupported $schema`},
		{"nested unknown type", `{"type":"object","properties":{"a":{"type":"date"}}}`, `schema at "a": unsupported type "date"`},
		{"items unknown type", `{"type":"array","items":{"type":"x"}}`, `schema at "[]": unsupported type "x"`},
		{"empty enum", `{"type":"string","enum":[]}`, "schema: enum is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileSchema(json.RawMessage(tt.schema))
			require.ErrorIs(t, err, ErrInvalidSchema)
			require.ErrorContains(t, err, tt.err)
		})
	}
}

// What the hand-written validator refused and JSON Schema allows: null
// and type lists (as jsonschema.For infers them for pointers and slices).
func TestValidatorAcceptsNullAndTypeLists(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object","properties":{
	  "n": {"type":"null"}, "tags": {"type":["null","array"],"items":{"type":"string"}}}}`))
	require.NoError(t, err)
	for _, ok := range []string{`{"n":null}`, `{"tags":null}`, `{"tags":["a"]}`} {
		_, err := s.validateJSON(json.RawMessage(ok))
		require.NoError(t, err, ok)
	}
	_, err = s.validateJSON(json.RawMessage(`{"tags":"a"}`))
	require.EqualError(t, err, `field "tags": expected null or array, got string "a"`)
}

func TestValidatorNamesTheFieldDeepInArraysAndMaps(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object","properties":{
	  "rows": {"type":"array","items":{"type":"object","properties":{"id":{"type":"integer","exclusiveMinimum":0}},"required":["id"]}},
	  "labels": {"type":"object","additionalProperties":{"type":"string","pattern":"^[a-z]+$"}},
	  "pair": {"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"boolean"}}}}`))
	require.NoError(t, err)
	tests := []struct{ args, err string }{
		{`{"rows":[{"id":1},{"id":0}]}`, `field "rows[1].id": must be > 0, got 0`},
		{`{"rows":[{"id":1},{}]}`, `missing required field "rows[1].id"`},
		{`{"labels":{"a":"ok","b":"NO"}}`, `field "labels.b": pattern: "NO" does not match regular expression "^[a-z]+$"`},
		{`{"pair":["x",true,1]}`, `field "pair[2]": expected boolean, got integer 1`},
		{`{"rows":[{"id":1e999}]}`, `field "rows[0].id": number 1e999 is out of range`},
		{`{"any":[-1e999]}`, `field "any[0]": number -1e999 is out of range`},
	}
	for _, tt := range tests {
		_, err := s.validateJSON(json.RawMessage(tt.args))
		require.EqualError(t, err, tt.err, tt.args)
		require.ErrorIs(t, err, ErrInvalidArguments)
	}
}

// A verdict the validator cannot place on a field is passed on in the
// library's words, naming the field it got to.
func TestValidatorPassesOnVerdictsItCannotPlace(t *testing.T) {
	s, err := compileSchema(json.RawMessage(`{"type":"object","properties":{
	  "v": {"anyOf":[{"type":"string"},{"type":"integer"}]}}}`))
	require.NoError(t, err)
	_, err = s.validateJSON(json.RawMessage(`{"v":true}`))
	require.ErrorIs(t, err, ErrInvalidArguments)
	require.ErrorContains(t, err, `field "v": anyOf: did not validate against any of`)
}
