package llm

import (
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Redacted replaces a secret in text a server, the network stack or a
// model wrote.
const Redacted = "[redacted]"

// minEncoded is the shortest encoded form scrubbed: a shorter one would
// redact ordinary text, and a key that short protects nothing anyway.
const minEncoded = 8

// Scrubber removes one secret (an API key) from text a provider sends back,
// error text and replies alike, as written and in the encodings servers,
// proxies and models echo it in. The zero value removes nothing. It is safe
// for concurrent use.
//
// It works in two passes. The first replaces fixed forms: the key as is,
// in upper and lower case, URL-encoded, JSON-escaped, hex-encoded, and any
// of these inside base64. The second reads the text as a decoder would,
// one unit at a time (a \u, \x or JSON escape, an HTML character
// reference, a %-escape, or a byte), folds ASCII case, and redacts every
// run of units that spells the key: so a key with any of its characters
// escaped any of these ways, in any case, is found too.
type Scrubber struct {
	r       *strings.Replacer
	forms   []string // the first pass's forms, longest first
	longest int      // the longest form's length
	folded  string   // the secret in lower case, for the second pass; "" when too short
}

// NewScrubber scrubs secret.
func NewScrubber(secret string) Scrubber {
	if secret == "" {
		return Scrubber{}
	}
	forms := encodings(secret)
	// The replacer tries its arguments in order at each position: longest
	// first, so a form never leaves the tail of a longer one behind.
	slices.SortFunc(forms, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	s := Scrubber{r: strings.NewReplacer(pairs...), forms: forms, longest: len(forms[0])}
	if len(secret) >= minEncoded {
		s.folded = foldASCII(secret)
	}
	return s
}

// encodings are the fixed forms secret takes in text: as is, in upper and
// lower case; URL-encoded (a query or a path echoed back); JSON-escaped,
// also with PHP's "\/"; hex-encoded in either case; and any of these
// inside base64 in the standard or URL alphabet (a Basic or Bearer header,
// a request body echoed in a token).
func encodings(secret string) []string {
	set := map[string]bool{}
	add := func(s string) {
		if len(s) >= minEncoded || s == secret {
			set[s] = true
		}
	}
	quoted, _ := json.Marshal(secret) // a string always marshals
	escaped := string(quoted[1 : len(quoted)-1])
	texts := []string{secret, url.QueryEscape(secret), url.PathEscape(secret), escaped, strings.ReplaceAll(escaped, "/", `\/`)}
	if len(secret) >= minEncoded {
		h := hex.EncodeToString([]byte(secret))
		texts = append(texts, strings.ToUpper(secret), strings.ToLower(secret), h, strings.ToUpper(h))
	}
	for _, t := range texts {
		add(t)
		for _, b := range base64Forms(t) {
			add(b)
		}
	}
	forms := make([]string, 0, len(set))
	for f := range set {
		forms = append(forms, f)
	}
	return forms
}

// base64Forms are what base64 makes of text wherever it starts in the
// encoded bytes: for each of the three byte alignments, the encoding of
// text's whole 3-byte groups, so at most two bytes at either end stay
// visible.
func base64Forms(text string) []string {
	var out []string
	for skip := 0; skip < 3 && skip < len(text); skip++ {
		b := []byte(text[skip:])
		b = b[:len(b)/3*3]
		out = append(out, base64.StdEncoding.EncodeToString(b), base64.URLEncoding.EncodeToString(b))
	}
	return out
}

// String returns text without the secret.
func (s Scrubber) String(text string) string {
	if s.r == nil {
		return text
	}
	return s.decoded(s.r.Replace(text))
}

// Err returns err with its text scrubbed, still unwrapping to err (so
// errors.Is sees context errors). The result does not hold the secret, so
// even a %#v print of it is safe.
func (s Scrubber) Err(err error) error {
	if s.r == nil || err == nil {
		return err
	}
	return scrubbedError{msg: s.String(err.Error()), err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e scrubbedError) Error() string { return e.msg }
func (e scrubbedError) Unwrap() error { return e.err }
