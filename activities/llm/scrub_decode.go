package llm

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoded is the scrubber's second pass: it redacts every run of text's
// units that decodes, ASCII case folded, to the secret (see Scrubber).
func (s Scrubber) decoded(text string) string {
	if s.folded == "" {
		return text
	}
	if !strings.ContainsAny(text, `\&%`) {
		return s.folds(text) // every unit is one byte: no mapping to keep
	}
	u := decodeUnits(text)
	var b strings.Builder
	last := 0 // end in text of what is already written
	for from := 0; ; {
		i := strings.Index(u.plain[from:], s.folded)
		if i < 0 {
			break
		}
		start, end := from+i, from+i+len(s.folded)
		if !u.aligned(start, end) || u.src[start] < last {
			from = start + 1
			continue
		}
		b.WriteString(text[last:u.src[start]])
		b.WriteString(Redacted)
		last = u.srcEnd(end - 1)
		from = end
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// folds redacts the secret in any ASCII case from text without escapes.
func (s Scrubber) folds(text string) string {
	lower := foldASCII(text)
	var b strings.Builder
	last := 0
	for from := 0; ; {
		i := strings.Index(lower[from:], s.folded)
		if i < 0 {
			break
		}
		start := from + i
		b.WriteString(text[last:start])
		b.WriteString(Redacted)
		last = start + len(s.folded)
		from = last
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// units is text decoded one unit at a time: plain holds the decoded bytes
// (ASCII letters in lower case); src[i] is where in text the unit that
// decoded to plain[i] starts, and width[i] how long it is there.
type units struct {
	plain string
	src   []int
	width []int
}

// aligned says plain[start:end] is made of whole units.
func (u units) aligned(start, end int) bool {
	first := start == 0 || u.src[start-1] != u.src[start]
	last := end == len(u.src) || u.src[end] != u.src[end-1]
	return first && last
}

func (u units) srcEnd(i int) int { return u.src[i] + u.width[i] }

func decodeUnits(text string) units {
	var plain []byte
	u := units{src: make([]int, 0, len(text)), width: make([]int, 0, len(text))}
	for i := 0; i < len(text); {
		dec, n := unitAt(text, i)
		for _, c := range dec {
			plain = append(plain, lowerASCII(c))
			u.src, u.width = append(u.src, i), append(u.width, n)
		}
		i += n
	}
	u.plain = string(plain)
	return u
}

// unitAt decodes the unit at text[i:]: its bytes and its length in text.
func unitAt(text string, i int) ([]byte, int) {
	rest := text[i:]
	switch rest[0] {
	case '\\':
		if dec, n := backslashEscape(rest); n > 0 {
			return dec, n
		}
	case '&':
		if dec, n := characterReference(rest); n > 0 {
			return dec, n
		}
	case '%':
		if len(rest) >= 3 {
			if v, err := strconv.ParseUint(rest[1:3], 16, 8); err == nil {
				return []byte{byte(v)}, 3
			}
		}
	}
	return []byte{rest[0]}, 1
}

// jsonShort are the one-character escapes of JSON (and most languages).
var jsonShort = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// backslashEscape decodes \uXXXX, \xHH and JSON's short escapes.
func backslashEscape(s string) ([]byte, int) {
	if len(s) < 2 {
		return nil, 0
	}
	if c, ok := jsonShort[s[1]]; ok {
		return []byte{c}, 2
	}
	switch {
	case (s[1] == 'u' || s[1] == 'U') && len(s) >= 6:
		if v, err := strconv.ParseUint(s[2:6], 16, 16); err == nil {
			return utf8.AppendRune(nil, rune(v)), 6
		}
	case (s[1] == 'x' || s[1] == 'X') && len(s) >= 4:
		if v, err := strconv.ParseUint(s[2:4], 16, 8); err == nil {
			return []byte{byte(v)}, 4
		}
	}
	return nil, 0
}

// namedReferences are the HTML character references an escaper writes for
// the characters a key may hold.
var namedReferences = map[string]byte{"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\''}

// maxReference bounds a character reference: "&#x" or "&#", up to 8 digits
// (leading zeros allowed) and ";".
const maxReference = 12

// characterReference decodes &#DDD;, &#xHH; and the named references.
func characterReference(s string) ([]byte, int) {
	end := strings.IndexByte(s[:min(len(s), maxReference)], ';')
	if end < 2 {
		return nil, 0
	}
	body := s[1:end]
	if c, ok := namedReferences[strings.ToLower(body)]; ok {
		return []byte{c}, end + 1
	}
	if body[0] != '#' || len(body) < 2 {
		return nil, 0
	}
	digits, base := body[1:], 10
	if digits[0] == 'x' || digits[0] == 'X' {
		digits, base = digits[1:], 16
	}
	v, err := strconv.ParseUint(digits, base, 21)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return nil, 0
	}
	return utf8.AppendRune(nil, rune(v)), end + 1
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}
