package stream

import (
	"net/url"
	"strconv"
)

// pathPrefix is where Handler serves streams; every Key.Path starts with it.
const pathPrefix = "/streams/"

// Key names one stream: one attempt of one model activity of one agent run.
// Agent, Run and Activity must be non-empty and must not be "." or "..",
// or the key has no usable URL path.
type Key struct {
	Agent    string
	Run      string
	Activity string
	Attempt  int32
}

// Path is the key's URL path under a server that mounts Handler at its root:
// /streams/<agent>/<run>/<activity>/<attempt>, each part path-escaped, so a
// "/" inside an ID stays inside its segment.
func (k Key) Path() string {
	return pathPrefix + url.PathEscape(k.Agent) +
		"/" + url.PathEscape(k.Run) +
		"/" + url.PathEscape(k.Activity) +
		"/" + strconv.FormatInt(int64(k.Attempt), 10)
}
