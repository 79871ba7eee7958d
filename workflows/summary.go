package workflows

import "github.com/tetherdev/tether/loop"

// modelSummary is a model call's summary when it says more than the
// call's activity ID (model-<turn>-<step>) already does, that is when the
// call names its model: a summary is ~60 bytes of history each call, and
// the Web UI shows the ID beside it anyway.
func modelSummary(c loop.CallModel) string {
	if c.Call.Model == "" {
		return ""
	}
	return c.Summary
}
