// Package providerfx provides the model providers registered on the worker.
// The scripted model is always there (the demo default, clearly named);
// OpenAI-compatible chat completions and Anthropic Messages join when an
// API key or base URL is configured. Credentials stay inside the adapters,
// and the OpenAI key goes only to the endpoint configfx chose it for.
package providerfx

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/fx/configfx"
	"github.com/tetherdev/tether/internal/startup"
)

// Provider names agents choose by.
const (
	OpenAIName    = "openai"
	AnthropicName = "anthropic"
)

// ScriptedWordDelay paces the scripted model's streamed answers, so live
// streaming can be watched without a key.
const ScriptedWordDelay = 40 * time.Millisecond

// HTTPClientName names an optional *http.Client the providers use instead
// of http.DefaultClient: an embedding application's proxy, TLS roots or
// instrumentation.
const HTTPClientName = "tether.providers.http"

// Module provides Providers.
var Module = fx.Module("providers", fx.Provide(New))

// Providers are the worker's model providers by name, with the default for
// agents that name none.
type Providers struct {
	ByName  map[string]activities.Provider
	Default string
}

// Params are New's dependencies.
type Params struct {
	fx.In
	Config     configfx.ProviderConfig
	Logger     *slog.Logger
	HTTPClient *http.Client `name:"tether.providers.http" optional:"true"`
}

// New builds the providers from configuration.
func New(p Params) (Providers, error) {
	demo := scripted.Provider{WordDelay: ScriptedWordDelay}
	out := Providers{ByName: map[string]activities.Provider{scripted.Name: demo}, Default: scripted.Name}
	cfg := p.Config
	if cfg.OpenAIConfigured() {
		o, err := openai.New(openai.Config{BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIAPIKey,
			DefaultModel: cfg.OpenAIModel, HTTPClient: p.HTTPClient, CacheRetention: cfg.OpenAICacheRetention})
		if err != nil {
			return Providers{}, misconfigured("OpenAI", "--openai-base-url", err)
		}
		logOpenAIKey(p.Logger, cfg)
		out.ByName[OpenAIName], out.Default = o, OpenAIName
	}
	if cfg.AnthropicConfigured() {
		a, err := anthropic.New(anthropic.Config{BaseURL: cfg.AnthropicBaseURL, APIKey: cfg.AnthropicAPIKey,
			DefaultModel: cfg.AnthropicModel, HTTPClient: p.HTTPClient, CacheTTL: cfg.AnthropicCacheTTL})
		if err != nil {
			return Providers{}, misconfigured("Anthropic", "--anthropic-base-url", err)
		}
		out.ByName[AnthropicName] = a
		if out.Default == scripted.Name {
			out.Default = AnthropicName
		}
	}
	if cfg.Default != "" {
		out.Default = cfg.Default
	}
	return out, nil
}

// logOpenAIKey says once, at startup, when an OpenAI-compatible endpoint
// gets no key, and why OPENAI_API_KEY was not sent to it. It logs the host
// only: a base URL may carry credentials.
func logOpenAIKey(log *slog.Logger, cfg configfx.ProviderConfig) {
	if cfg.OpenAIAPIKey != "" {
		return
	}
	host := ""
	if u, err := url.Parse(cfg.OpenAIBaseURL); err == nil {
		host = u.Host
	}
	if cfg.OpenAIKeyWithheld {
		log.Warn("OPENAI_API_KEY is not sent to a custom OpenAI base URL", "host", host, "key_env", cfg.OpenAIKeyEnv,
			"to_send_it", "--openai-api-key-env "+configfx.OpenAIKeyEnv)
		return
	}
	log.Info("OpenAI-compatible endpoint has no API key", "host", host, "key_env", cfg.OpenAIKeyEnv)
}

// misconfigured explains a provider adapter that refused its configuration.
func misconfigured(name, flag string, err error) error {
	return &startup.Error{Problem: "the " + name + " provider is misconfigured (" + err.Error() + ")",
		Fix: "check " + flag + " and the provider's model flag", Err: err}
}
