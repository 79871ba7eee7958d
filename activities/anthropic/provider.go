package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/tetherdev/tether/activities/llm"
	"github.com/tetherdev/tether/eventlog"
)

// providerName is recorded on every assistant message this adapter produces.
const providerName = "anthropic"

const (
	// DefaultBaseURL is the API root used when Config.BaseURL is empty.
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultMaxTokens caps output when neither the request nor the config
	// does: the API requires max_tokens on every call.
	DefaultMaxTokens = 4096
)

// Config configures a Provider. It holds the API key, so it is built at the
// worker edge and never travels in an activity input.
type Config struct {
	// BaseURL is the API root, without /v1; empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as the x-api-key header; empty sends none (a gateway
	// that adds its own credentials).
	APIKey string
	// DefaultModel is used when a request names no model.
	DefaultModel string
	// DefaultMaxTokens is used when a request sets no MaxTokens; 0 means
	// DefaultMaxTokens.
	DefaultMaxTokens int
	// Timeout bounds each HTTP request, a stream's body included. 0 leaves
	// Stream to the caller's context and Complete to the SDK's own bound of
	// 10 minutes, under which the SDK refuses a call whose max_tokens it
	// expects to take longer (Complete reports that as invalid_request).
	Timeout time.Duration
	// HTTPClient is optional; nil uses http.DefaultClient.
	HTTPClient *http.Client
	// CacheTTL is how long the prompt cache keeps what a call writes:
	// CacheTTLShort (5 minutes, also when 0) or CacheTTLLong (an hour, for
	// agents that idle longer between turns; writes cost more).
	CacheTTL time.Duration
}

// Provider calls the Messages API. It is safe for concurrent use.
type Provider struct {
	messages         sdk.MessageService
	defaultModel     string
	defaultMaxTokens int64
	cache            sdk.CacheControlEphemeralParam // every breakpoint's marker
	scrubber         llm.Scrubber                   // removes the API key from error text and replies
}

// New validates cfg and builds a Provider.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.DefaultMaxTokens == 0 {
		cfg.DefaultMaxTokens = DefaultMaxTokens
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(0),
		option.WithoutOpenTelemetry(),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	if cfg.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(cfg.Timeout))
	}
	return &Provider{
		messages:         sdk.NewMessageService(opts...),
		defaultModel:     cfg.DefaultModel,
		defaultMaxTokens: int64(cfg.DefaultMaxTokens),
		cache:            cacheControl(cfg.CacheTTL),
		scrubber:         llm.NewScrubber(cfg.APIKey),
	}, nil
}

// validate never echoes BaseURL: it may carry credentials.
func (c Config) validate() error {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return errors.New("anthropic config: base url does not parse")
	}
	switch {
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return errors.New("anthropic config: base url must be an absolute http or https url")
	case c.DefaultMaxTokens < 0:
		return errors.New("anthropic config: default max tokens must not be negative")
	case c.Timeout < 0:
		return errors.New("anthropic config: timeout must not be negative")
	case c.CacheTTL != 0 && c.CacheTTL != CacheTTLShort && c.CacheTTL != CacheTTLLong:
		return fmt.Errorf("anthropic config: cache ttl %s: want %s or %s", c.CacheTTL, CacheTTLShort, CacheTTLLong)
	}
	return nil
}

// Complete makes one non-streaming Messages call. Every error is an *llm.Error.
// DefaultModel is the model a request naming none asks for
// (activities.DefaultModeler).
func (p *Provider) DefaultModel() string { return p.defaultModel }

func (p *Provider) Complete(ctx context.Context, req llm.Request) (eventlog.AssistantMessage, error) {
	params, err := p.params(req)
	if err != nil {
		return eventlog.AssistantMessage{}, err
	}
	// The SDK refuses, before sending, a non-streaming call it expects to
	// outlast its timeout; that is the request's fault, so say so up front.
	if _, err := sdk.CalculateNonStreamingTimeout(int(params.MaxTokens), params.Model, p.messages.Options); err != nil {
		msg := fmt.Sprintf("max_tokens %d is too large for a non-streaming call to %s: stream it or set a timeout", params.MaxTokens, params.Model)
		return eventlog.AssistantMessage{}, invalid(msg)
	}
	var raw *http.Response
	res, err := p.messages.New(ctx, params, option.WithResponseInto(&raw))
	if err != nil {
		return eventlog.AssistantMessage{}, p.failure(ctx, err, raw)
	}
	return p.scrubber.Reply(toAssistant(res))
}

// params builds the request's params with its cache breakpoints.
func (p *Provider) params(req llm.Request) (sdk.MessageNewParams, error) {
	params, err := buildParams(req, p.defaultModel, p.defaultMaxTokens)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	markCache(&params, p.cache)
	return params, nil
}
