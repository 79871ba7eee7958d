package openai

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// providerName is recorded on every assistant message this adapter produces.
const providerName = "openai"

// DefaultBaseURL is the official API's root, used when Config.BaseURL is
// empty: a key alone is enough to talk to OpenAI.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Provider. It holds the API key, so it is built at the
// worker edge and never travels in an activity input.
type Config struct {
	// BaseURL is the API root, e.g. http://localhost:11434/v1; empty means
	// DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization header
	// (local servers).
	APIKey string
	// DefaultModel is used when a request names no model.
	DefaultModel string
	// Timeout bounds each HTTP request, for Stream until the last event is
	// read; 0 leaves it to the caller's context.
	Timeout time.Duration
	// HTTPClient is optional; nil uses http.DefaultClient.
	HTTPClient *http.Client
}

// Provider calls a chat completions endpoint. It is safe for concurrent use.
type Provider struct {
	chat         openai.ChatCompletionService
	defaultModel string
	scrubber     llm.Scrubber // removes the API key from error text and replies
}

// New validates cfg and builds a Provider.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	if cfg.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(cfg.Timeout))
	}
	return &Provider{
		chat:         openai.NewChatCompletionService(opts...),
		defaultModel: cfg.DefaultModel,
		scrubber:     llm.NewScrubber(cfg.APIKey),
	}, nil
}

// validate never echoes BaseURL: it may carry credentials.
func (c Config) validate() error {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return errors.New("openai config: base url does not parse")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("openai config: base url must be an absolute http or https url")
	}
	if c.Timeout < 0 {
		return errors.New("openai config: timeout must not be negative")
	}
	return nil
}

// Complete makes one chat completion call. Every error is an *llm.Error.
// DefaultModel is the model a request naming none asks for
// (activities.DefaultModeler).
func (p *Provider) DefaultModel() string { return p.defaultModel }

func (p *Provider) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	params, err := buildParams(req, p.defaultModel)
	if err != nil {
		return eventlog.AssistantMessage{}, err
	}
	var raw *http.Response
	res, err := p.chat.New(ctx, params, option.WithResponseInto(&raw))
	if err != nil {
		return eventlog.AssistantMessage{}, p.failure(ctx, err, raw)
	}
	return p.scrubber.Reply(toAssistant(res))
}
