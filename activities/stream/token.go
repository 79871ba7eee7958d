package stream

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
)

// tokenBytes is a stream token's entropy: 256 bits, far beyond guessing
// within any stream's life.
const tokenBytes = 32

// newToken returns a fresh capability token. crypto/rand.Read never fails.
func newToken() string {
	b := make([]byte, tokenBytes)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// sameToken compares in constant time, so the time a wrong guess takes says
// nothing about how much of it was right.
func sameToken(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// bearer returns the request's bearer token, "" when it has none. The
// token travels in the Authorization header, never in the URL: URLs end up
// in error messages, proxy logs and shell history. The scheme's name is
// case-insensitive (RFC 9110).
func bearer(r *http.Request) string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return token
}
