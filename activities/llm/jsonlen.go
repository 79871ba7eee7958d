package llm

import "unicode/utf8"

// EncodedLen is the length of s as encoding/json writes it inside a JSON
// string (without the quotes), as Temporal's JSON payload converter does:
// quotes and backslashes take two bytes, \b \f \n \r \t two, other control
// bytes and the HTML characters < > & six (\u00XX), each invalid UTF-8 byte
// six (\ufffd), U+2028 and U+2029 six, everything else itself. A text of
// angle brackets is six times its length on the wire.
func EncodedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		w, size := encodedRune(s, i)
		n += w
		i += size
	}
	return n
}

// CutEncoded is the longest prefix of s, cut on a rune boundary, whose
// EncodedLen is at most budget.
func CutEncoded(s string, budget int) int {
	n := 0
	for i := 0; i < len(s); {
		w, size := encodedRune(s, i)
		if n+w > budget {
			return i
		}
		n += w
		i += size
	}
	return len(s)
}

// encodedRune is the encoded width of the rune (or invalid byte) at s[i]
// and how many bytes of s it takes.
func encodedRune(s string, i int) (width, size int) {
	b := s[i]
	if b < utf8.RuneSelf {
		switch {
		case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
			return 2, 1
		case b < ' ' || b == '<' || b == '>' || b == '&':
			return 6, 1
		}
		return 1, 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return 6, 1
	case r == '\u2028' || r == '\u2029':
		return 6, size
	}
	return size, size
}
