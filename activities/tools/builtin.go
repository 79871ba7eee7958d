package tools

import (
	"encoding/json"
	"fmt"
)

// decodeArgs unmarshals validated arguments into dst. A failure is shown to
// the model: retrying the same arguments could never succeed.
func decodeArgs(call Call, dst any) error {
	if err := json.Unmarshal(call.Arguments, dst); err != nil {
		return ErrorResult(fmt.Errorf("invalid arguments for tool %q: %w", call.Name, err))
	}
	return nil
}
