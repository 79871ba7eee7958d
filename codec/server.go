package codec

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// Codec server limits and the CORS answer the Web UI needs.
const (
	// MaxRequestBytes bounds one encode or decode request body.
	MaxRequestBytes = 16 << 20
	allowHeaders    = "Authorization, Content-Type, " + HeaderNamespace + ", " + HeaderWorkflowID
	allowMethods    = "POST, OPTIONS"
)

// Request headers naming the workflow the payloads are for. With
// HeaderWorkflowID (and HeaderNamespace, which the Web UI sends with every
// request) /encode binds the payloads to that workflow and /decode decodes
// as that workflow does, refusing payloads bound to another. Without it
// /encode binds to no workflow (the Web UI and the CLI name none), and
// /decode decodes every payload.
const (
	HeaderNamespace  = "X-Namespace"
	HeaderWorkflowID = "X-Tether-Workflow-ID"
)

// ServerOptions configure NewHandler.
type ServerOptions struct {
	// Origins are the browser origins (scheme://host:port) that may call the
	// handler, the Web UI's; a request from any other origin is refused.
	// Clients that send no Origin (SDKs, the CLI) are not affected.
	Origins []string
	// Token must arrive as "Authorization: Bearer <Token>" on every encode
	// and decode; preflight requests carry no credentials. It is required:
	// a codec server decrypts anything for whoever calls it.
	Token string
	// UIPath, when set, is a secret path prefix ("/ui-<random>") that
	// stands in for the token on requests from one of Origins: the
	// embedded Web UI, which cannot send a bearer header, is pointed at
	// <base>UIPath. It must be at least MinTokenBytes long after the slash.
	UIPath string
	// ResolveClaims, when set, replaces the claims among the payloads of a
	// /decode (what history holds for a payload kept in a blob store) with
	// the payloads they name, before they are decoded as any other: a
	// blob is the encoded payload, so it is decrypted, and checked against
	// the workflow the request names, like one in history.
	// blobstore.Resolve is one. Claims past MaxResolvedBytes of resolved
	// payloads in one request are left as claims.
	ResolveClaims func(ctx context.Context, payloads []*commonpb.Payload) ([]*commonpb.Payload, error)
}

// MaxResolvedBytes bounds the payloads claims resolve to in one /decode:
// what the server reads from the blob store and answers with.
const MaxResolvedBytes = 64 << 20

// MinTokenBytes is the shortest token or UI path secret NewHandler takes.
const MinTokenBytes = 16

// ErrNoToken refuses a codec server anyone could call.
var ErrNoToken = fmt.Errorf("%w: the codec server needs a bearer token", ErrInvalidConfig)

// handler serves the remote codec protocol with CORS and an optional
// bearer token in front of the SDK's handler.
type handler struct {
	pc      converter.PayloadCodec
	codec   http.Handler // pc's, for requests naming no workflow
	origins map[string]bool
	token   []byte
	uiPath  string
	resolve func(context.Context, []*commonpb.Payload) ([]*commonpb.Payload, error)
}

// NewHandler serves pc over the Temporal remote codec protocol: POST
// …/encode and …/decode with a JSON {"payloads": [...]} body, as the Web UI
// and the CLI (--codec-endpoint) call it. The path may carry a prefix such
// as the namespace. A *Codec that requires binding answers an /encode that
// names no workflow (HeaderWorkflowID) with 400: every workflow would
// refuse what it made.
func NewHandler(pc converter.PayloadCodec, o ServerOptions) (http.Handler, error) {
	h := &handler{pc: pc, codec: converter.NewPayloadCodecHTTPHandler(pc), origins: map[string]bool{}, resolve: o.ResolveClaims}
	for _, origin := range o.Origins {
		norm, err := normalizeOrigin(origin)
		if err != nil {
			return nil, err
		}
		h.origins[norm] = true
	}
	if strings.TrimSpace(o.Token) == "" {
		return nil, ErrNoToken
	}
	h.token = []byte("Bearer " + o.Token)
	if o.UIPath != "" {
		if !strings.HasPrefix(o.UIPath, "/") || len(o.UIPath) < 1+MinTokenBytes || strings.ContainsAny(o.UIPath[1:], "/?#") {
			return nil, fmt.Errorf("%w: codec server UI path: want /<at least %d characters>", ErrInvalidConfig, MinTokenBytes)
		}
		h.uiPath = o.UIPath + "/"
	}
	return h, nil
}

// normalizeOrigin accepts scheme://host[:port] with an optional trailing
// slash, the form browsers send in Origin.
func normalizeOrigin(origin string) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(origin, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.Path != "" || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("%w: codec server origin %q: want scheme://host[:port]", ErrInvalidConfig, origin)
	}
	return u.Scheme + "://" + u.Host, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" {
		if !h.origins[origin] {
			http.Error(w, "origin not allowed", http.StatusForbidden)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Set("Access-Control-Allow-Credentials", "true")
		w.Header().Add("Vary", "Origin")
	}
	switch r.Method {
	case http.MethodOptions:
		w.Header().Set("Access-Control-Allow-Methods", allowMethods)
		w.Header().Set("Access-Control-Allow-Headers", allowHeaders)
		w.Header().Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPost:
		if !h.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tether codec"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		codec, err := h.codecFor(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBytes)
		codec.ServeHTTP(w, r)
	default:
		w.Header().Set("Allow", allowMethods)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// authorized: the bearer token, or the UI path from an allowed origin (an
// Origin is checked before: any other one was refused).
func (h *handler) authorized(r *http.Request) bool {
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), h.token) == 1 {
		return true
	}
	if h.uiPath == "" || r.Header.Get("Origin") == "" || len(r.URL.Path) < len(h.uiPath) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(r.URL.Path[:len(h.uiPath)]), []byte(h.uiPath)) == 1
}

// codecFor is the codec of the workflow r names, or the unbound one.
func (h *handler) codecFor(r *http.Request) (http.Handler, error) {
	id := r.Header.Get(HeaderWorkflowID)
	if id == "" {
		if c, ok := h.pc.(*Codec); ok && c.requireBinding && strings.HasSuffix(r.URL.Path, "/encode") {
			return nil, fmt.Errorf("binding is required (%s): name the workflow the payloads are for in %s and its namespace in %s",
				EnvRequireBinding, HeaderWorkflowID, HeaderNamespace)
		}
		if h.resolve != nil {
			return converter.NewPayloadCodecHTTPHandler(resolving{h.pc, h.resolve, r.Context()}), nil
		}
		return h.codec, nil
	}
	ns := r.Header.Get(HeaderNamespace)
	if ns == "" {
		return nil, fmt.Errorf("%s needs %s: the workflow's namespace", HeaderWorkflowID, HeaderNamespace)
	}
	sc, ok := h.pc.(converter.PayloadCodecWithSerializationContext)
	if !ok {
		return nil, fmt.Errorf("this codec cannot bind payloads to a workflow: leave %s out", HeaderWorkflowID)
	}
	ctx := converter.WorkflowSerializationContext{Namespace: ns, WorkflowID: id}
	bound := sc.WithSerializationContext(ctx)
	if h.resolve != nil {
		bound = resolving{bound, h.resolve, r.Context()}
	}
	return converter.NewPayloadCodecHTTPHandler(bound), nil
}

// resolving is a codec that resolves claims before it decodes: one per
// request, on the request's context.
type resolving struct {
	converter.PayloadCodec
	resolve func(context.Context, []*commonpb.Payload) ([]*commonpb.Payload, error)
	ctx     context.Context
}

// Decode resolves the claims among payloads within MaxResolvedBytes, then
// decodes.
func (r resolving) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	budget := MaxResolvedBytes
	for i, p := range payloads {
		got, err := r.resolve(r.ctx, []*commonpb.Payload{p})
		if err != nil {
			return nil, err
		}
		out[i] = got[0]
		if got[0] != p {
			if size := got[0].Size(); size <= budget {
				budget -= size
			} else {
				out[i] = p // past the bound: the claim, as history holds it
			}
		}
	}
	return r.PayloadCodec.Decode(out)
}
