package configfx

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/openai"
)

// Environment variables the provider keys come from.
const (
	// OpenAIKeyEnv holds the key of the official OpenAI API.
	OpenAIKeyEnv = "OPENAI_API_KEY"
	// CompatibleKeyEnv holds the key of any other --openai-base-url, so the
	// OpenAI key never travels to a server it was not issued for.
	CompatibleKeyEnv = "OPENAI_COMPATIBLE_API_KEY"
	// AnthropicKeyEnv holds the Anthropic API key.
	AnthropicKeyEnv = "ANTHROPIC_API_KEY"
)

// ProviderConfig selects and configures model providers. API keys come
// from the environment only and never leave the worker.
type ProviderConfig struct {
	// Default is "scripted", "openai" or "anthropic"; empty picks the first
	// configured of openai and anthropic, else the scripted model.
	Default string
	// OpenAIBaseURL is the chat completions root: openai.DefaultBaseURL
	// unless --openai-base-url names an OpenAI-compatible server.
	OpenAIBaseURL string
	// OpenAIKeyEnv names the variable OpenAIAPIKey was read from:
	// OPENAI_API_KEY for the official API, OPENAI_COMPATIBLE_API_KEY for
	// any other base URL, unless --openai-api-key-env names one.
	OpenAIKeyEnv string
	OpenAIAPIKey string
	// OpenAIKeyWithheld reports that OPENAI_API_KEY is set but not sent,
	// because the base URL is not the official API's; the worker says so.
	OpenAIKeyWithheld bool
	OpenAIModel       string
	AnthropicBaseURL  string
	AnthropicAPIKey   string
	AnthropicModel    string
	// AnthropicCacheTTL is how long Anthropic's prompt cache keeps what a
	// call writes (anthropic.Config.CacheTTL): 5m (the API's default) or 1h.
	AnthropicCacheTTL time.Duration
	// OpenAICacheRetention is sent as prompt_cache_retention
	// (openai.Config.CacheRetention): "" (OpenAI's default), in_memory or 24h.
	OpenAICacheRetention string

	cacheTTLEnv string // ANTHROPIC_CACHE_TTL, read unless the flag is given
	cacheTTLSet bool
}

// providerFlags registers the provider flags on fs; keyEnv receives
// --openai-api-key-env, resolved by loadKeys once flags are parsed.
func providerFlags(fs *flag.FlagSet, p *ProviderConfig, keyEnv *string, env func(string) string) {
	fs.StringVar(&p.Default, "provider", env("TETHER_PROVIDER"), "default model provider: scripted, openai or anthropic")
	fs.StringVar(&p.OpenAIBaseURL, "openai-base-url", envOr(env, "OPENAI_BASE_URL", openai.DefaultBaseURL),
		"OpenAI-compatible base URL; another than the default gets its key from "+CompatibleKeyEnv)
	fs.StringVar(keyEnv, "openai-api-key-env", "",
		"environment variable holding the key for --openai-base-url (default "+OpenAIKeyEnv+" for the official API, "+
			CompatibleKeyEnv+" for any other; name "+OpenAIKeyEnv+" to send it there)")
	fs.StringVar(&p.OpenAIModel, "openai-model", envOr(env, "OPENAI_MODEL", "gpt-4o-mini"), "default OpenAI-compatible model")
	fs.StringVar(&p.AnthropicBaseURL, "anthropic-base-url", envOr(env, "ANTHROPIC_BASE_URL", ""), "Anthropic API base URL")
	fs.StringVar(&p.AnthropicModel, "anthropic-model", envOr(env, "ANTHROPIC_MODEL", "claude-sonnet-4-5"), "default Anthropic model")
	fs.Func("anthropic-cache-ttl", "how long Anthropic's prompt cache keeps a call's prefix: 5m or 1h (writes bill 1.25x or 2x input; default 5m)",
		func(v string) error { return p.setCacheTTL(v) })
	fs.StringVar(&p.OpenAICacheRetention, "openai-cache-retention", env(EnvOpenAICacheRetention),
		"prompt_cache_retention sent to OpenAI: in_memory or 24h (default: OpenAI's own)")
	if v := env(EnvAnthropicCacheTTL); v != "" {
		p.cacheTTLEnv = v
	}
}

// Environment variables of the prompt cache settings.
const (
	EnvAnthropicCacheTTL    = "ANTHROPIC_CACHE_TTL"
	EnvOpenAICacheRetention = "OPENAI_CACHE_RETENTION"
)

// setCacheTTL reads --anthropic-cache-ttl: one of the two lifetimes
// Anthropic offers, nothing else.
func (p *ProviderConfig) setCacheTTL(v string) error {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || (d != anthropic.CacheTTLShort && d != anthropic.CacheTTLLong) {
		return fmt.Errorf("%q is not a cache lifetime Anthropic offers: use 5m or 1h", v)
	}
	p.AnthropicCacheTTL = d
	p.cacheTTLSet = true
	return nil
}

// loadKeys reads the API keys. The OpenAI key goes only to the official
// API unless the user names the variable for another base URL explicitly.
func (p *ProviderConfig) loadKeys(keyEnv string, env func(string) string) error {
	if !p.cacheTTLSet && p.cacheTTLEnv != "" {
		if err := p.setCacheTTL(p.cacheTTLEnv); err != nil {
			return fmt.Errorf("%s: %w", EnvAnthropicCacheTTL, err)
		}
	}
	if p.OpenAIBaseURL == "" {
		p.OpenAIBaseURL = openai.DefaultBaseURL
	}
	p.AnthropicAPIKey = env(AnthropicKeyEnv)
	p.OpenAIKeyEnv = keyEnv
	if keyEnv == "" {
		p.OpenAIKeyEnv = CompatibleKeyEnv
		if p.OpenAIOfficial() {
			p.OpenAIKeyEnv = OpenAIKeyEnv
		}
	}
	p.OpenAIAPIKey = env(p.OpenAIKeyEnv)
	if keyEnv != "" && p.OpenAIAPIKey == "" {
		return fmt.Errorf("--openai-api-key-env %s names an empty variable: set %s, or drop the flag", keyEnv, keyEnv)
	}
	p.OpenAIKeyWithheld = p.OpenAIKeyEnv != OpenAIKeyEnv && env(OpenAIKeyEnv) != ""
	return nil
}

// OpenAIOfficial reports whether the OpenAI base URL is the official API's.
func (p ProviderConfig) OpenAIOfficial() bool {
	return strings.TrimRight(p.OpenAIBaseURL, "/") == openai.DefaultBaseURL
}

// validate checks the provider choice against what is configured. It never
// echoes a base URL: one may carry credentials.
func (p ProviderConfig) validate() []error {
	var errs []error
	switch p.Default {
	case "", "scripted", "openai", "anthropic":
	default:
		errs = append(errs, fmt.Errorf("--provider %q is unknown: use scripted, openai or anthropic", p.Default))
	}
	for _, f := range []struct{ flag, url string }{
		{"--openai-base-url", p.OpenAIBaseURL}, {"--anthropic-base-url", p.AnthropicBaseURL},
	} {
		if u, err := url.Parse(f.url); f.url != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			errs = append(errs, fmt.Errorf("%s is not an http(s) URL: write it like http://127.0.0.1:11434/v1", f.flag))
		}
	}
	switch p.OpenAICacheRetention {
	case "", openai.CacheRetentionInMemory, openai.CacheRetention24h:
	default:
		errs = append(errs, fmt.Errorf("--openai-cache-retention %q is not one OpenAI offers: use %s or %s",
			p.OpenAICacheRetention, openai.CacheRetentionInMemory, openai.CacheRetention24h))
	}
	if p.Default == "openai" && !p.OpenAIConfigured() {
		errs = append(errs, errors.New("--provider openai needs "+OpenAIKeyEnv+" (the official API) or --openai-base-url (a compatible server)"))
	}
	if p.Default == "anthropic" && !p.AnthropicConfigured() {
		errs = append(errs, errors.New("--provider anthropic needs "+AnthropicKeyEnv+" or --anthropic-base-url"))
	}
	return errs
}

// OpenAIConfigured reports whether an OpenAI-compatible endpoint is usable:
// the official API with a key, or any other base URL (local servers such
// as Ollama need none).
func (p ProviderConfig) OpenAIConfigured() bool {
	return p.OpenAIAPIKey != "" || !p.OpenAIOfficial()
}

// AnthropicConfigured reports whether the Anthropic API is usable.
func (p ProviderConfig) AnthropicConfigured() bool {
	return p.AnthropicAPIKey != "" || p.AnthropicBaseURL != ""
}
