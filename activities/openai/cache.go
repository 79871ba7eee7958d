package openai

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
)

// Prompt cache retentions OpenAI offers (Config.CacheRetention).
const (
	CacheRetentionInMemory = "in_memory"
	CacheRetention24h      = "24h"
)

// promptCacheKey is what an agent's calls send as prompt_cache_key: a hash
// of its ID, so the ID itself, which may name a user, never leaves the
// worker, and every call of the agent, in any run of its chain, sends the
// same key. OpenAI routes calls with one key and one prefix to the same
// cache.
func promptCacheKey(agent string) string {
	sum := sha256.Sum256([]byte(agent))
	return "tether-" + hex.EncodeToString(sum[:16])
}

// markCache asks for the agent's prompt cache: OpenAI caches prefixes of
// 1,024 tokens or more by itself, and the key keeps an agent's calls on
// the cache its earlier calls filled.
func markCache(p *openai.ChatCompletionNewParams, agent, retention string) {
	if agent != "" {
		p.PromptCacheKey = param.NewOpt(promptCacheKey(agent))
	}
	if retention != "" {
		p.PromptCacheRetention = openai.ChatCompletionNewParamsPromptCacheRetention(retention)
	}
}
