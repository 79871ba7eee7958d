package anthropic

import (
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
)

// Cache lifetimes the API offers for a breakpoint (Config.CacheTTL).
const (
	CacheTTLShort = 5 * time.Minute // the API's default; writes bill 1.25× input
	CacheTTLLong  = time.Hour       // writes bill 2× input
)

// cacheControl is the marker every breakpoint of a request carries.
func cacheControl(ttl time.Duration) sdk.CacheControlEphemeralParam {
	cc := sdk.NewCacheControlEphemeralParam()
	if ttl == CacheTTLLong {
		cc.TTL = sdk.CacheControlEphemeralTTLTTL1h
	}
	return cc
}

// markCache sets the request's cache breakpoints, at most the API's four,
// on the prefix that stays the same from call to call (the API's prefix
// order is tools, system, messages): the last tool, the last system
// block, the end of what the previous call sent and the end of this one.
// Each breakpoint caches the prefix up to its block, so a call reads what
// the one before it wrote and writes its own end for the next; a changed
// system prompt still reads the tools, a compacted conversation still
// reads tools and system.
func markCache(p *sdk.MessageNewParams, cc sdk.CacheControlEphemeralParam) {
	if n := len(p.Tools); n > 0 {
		if c := p.Tools[n-1].GetCacheControl(); c != nil {
			*c = cc
		}
	}
	if n := len(p.System); n > 0 {
		p.System[n-1].CacheControl = cc
	}
	for _, i := range conversationBreakpoints(p.Messages) {
		content := p.Messages[i].Content
		if c := content[len(content)-1].GetCacheControl(); c != nil {
			*c = cc
		}
	}
}

// conversationBreakpoints are the messages whose last block ends a cached
// prefix: the last message, and the one before the last assistant turn,
// where the call that produced that turn ended. Marking the previous end
// exactly, not only relying on the API's look-back of 20 blocks from a
// breakpoint, keeps the hit when one step adds more blocks than that (many
// parallel tool calls and their results).
func conversationBreakpoints(msgs []sdk.MessageParam) []int {
	last := len(msgs) - 1
	if last < 0 {
		return nil
	}
	out := []int{last}
	for i := last - 1; i > 0; i-- {
		if msgs[i].Role == sdk.MessageParamRoleAssistant {
			return append(out, i-1)
		}
	}
	return out
}
