package tools

import (
	"encoding/json"
	"errors"
	"fmt"
)

// CheckArguments reports whether a call of the named tool with args would
// pass the tool's schema, as Execute checks the model's calls: a person's
// edit of a call waiting for approval is refused before it enters history
// when it would not. schema, when set, is the input schema an MCP server
// listed for its tool (which this registry does not hold); otherwise the
// registry's tool is looked up. Safe for concurrent use.
func (r *Registry) CheckArguments(name string, schema, args json.RawMessage) error {
	if schema != nil {
		s, err := compileSchema(schema)
		if err != nil {
			return fmt.Errorf("tool %q: its server's %w", name, err)
		}
		_, err = s.validateJSON(args)
		return wrapArgs(name, err)
	}
	e, ok := r.tools[name]
	if !ok {
		return invalidArgs(errors.New(r.unknownTool(name)))
	}
	_, err := e.schema.validateJSON(args)
	return wrapArgs(name, err)
}

func wrapArgs(name string, err error) error {
	if err != nil {
		return fmt.Errorf("invalid arguments for tool %q: %w", name, err)
	}
	return nil
}
