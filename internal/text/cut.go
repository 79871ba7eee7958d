package text

import "unicode/utf8"

// Cut returns the longest prefix of s of at most n bytes that does not end
// inside a UTF-8 sequence: s itself when it fits, empty when n <= 0.
//
// Bytes that are not valid UTF-8 count one each, as range and
// utf8.DecodeRune read them, so a cut moves back only over a whole rune
// that would straddle it (at most utf8.UTFMax-1 bytes), never over a run
// of stray bytes. On valid UTF-8 it is the cut that backs off while the
// byte at n is not a rune start.
func Cut[T ~string | ~[]byte](s T, n int) T {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return s[:0]
	}
	for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)])); i+size > n && (r != utf8.RuneError || size > 1) {
			return s[:i]
		}
		break
	}
	return s[:n]
}
