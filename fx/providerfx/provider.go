// Package providerfx provides the model providers registered on the worker.
// The scripted model is always there (the demo default, clearly named);
// OpenAI-compatible chat completions and Anthropic Messages join when an
// API key or base URL is configured. Credentials stay inside the adapters.
package providerfx

import (
	"time"

	"go.uber.org/fx"

	"github.com/tetherdev/tether/activities"
	"github.com/tetherdev/tether/activities/anthropic"
	"github.com/tetherdev/tether/activities/openai"
	"github.com/tetherdev/tether/activities/scripted"
	"github.com/tetherdev/tether/fx/configfx"
)

// Provider names agents choose by.
const (
	OpenAIName    = "openai"
	AnthropicName = "anthropic"
)

// ScriptedWordDelay paces the scripted model's streamed answers, so live
// streaming can be watched without a key.
const ScriptedWordDelay = 40 * time.Millisecond

// Module provides Providers.
var Module = fx.Module("providers", fx.Provide(New))

// Providers are the worker's model providers by name, with the default for
// agents that name none.
type Providers struct {
	ByName  map[string]activities.Provider
	Default string
}

// New builds the providers from configuration.
func New(cfg configfx.Config) (Providers, error) {
	demo := scripted.Provider{WordDelay: ScriptedWordDelay}
	p := Providers{ByName: map[string]activities.Provider{scripted.Name: demo}, Default: scripted.Name}
	if cfg.OpenAIConfigured() {
		o, err := openai.New(openai.Config{
			BaseURL: cfg.Provider.OpenAIBaseURL, APIKey: cfg.Provider.OpenAIAPIKey, DefaultModel: cfg.Provider.OpenAIModel,
		})
		if err != nil {
			return Providers{}, err
		}
		p.ByName[OpenAIName] = o
		p.Default = OpenAIName
	}
	if cfg.AnthropicConfigured() {
		a, err := anthropic.New(anthropic.Config{
			BaseURL: cfg.Provider.AnthropicBaseURL, APIKey: cfg.Provider.AnthropicAPIKey, DefaultModel: cfg.Provider.AnthropicModel,
		})
		if err != nil {
			return Providers{}, err
		}
		p.ByName[AnthropicName] = a
		if p.Default == scripted.Name {
			p.Default = AnthropicName
		}
	}
	if cfg.Provider.Default != "" {
		p.Default = cfg.Provider.Default
	}
	return p, nil
}
