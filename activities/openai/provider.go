package openai

import (
	"context"
	"errors"
	"fmt"
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
	// CacheRetention is sent as prompt_cache_retention: CacheRetention24h
	// keeps cached prefixes up to a day, CacheRetentionInMemory minutes;
	// empty sends none, leaving OpenAI's default (24h for most
	// organisations, and the only one newer models take).
	CacheRetention string
}

// Provider calls a chat completions endpoint. It is safe for concurrent use.
type Provider struct {
	chat         openai.ChatCompletionService
	defaultModel string
	retention    string       // prompt_cache_retention, or empty
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
		retention:    cfg.CacheRetention,
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
	switch c.CacheRetention {
	case "", CacheRetentionInMemory, CacheRetention24h:
	default:
		return fmt.Errorf("openai config: cache retention %q: want %q or %q", c.CacheRetention, CacheRetentionInMemory, CacheRetention24h)
	}
	return nil
}

// Complete makes one chat completion call. Every error is an *llm.Error.
// DefaultModel is the model a request naming none asks for
// (activities.DefaultModeler).
func (p *Provider) DefaultModel() string { return p.defaultModel }

func (p *Provider) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	params, err := p.params(req)
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

// params builds the request's params with its prompt cache settings.
func (p *Provider) params(req llm.Request) (openai.ChatCompletionNewParams, error) {
	params, err := buildParams(req, p.defaultModel)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	markCache(&params, req.CacheKey, p.retention)
	return params, nil
}
