package text

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestCutKeepsTheLongestPrefixThatEndsOnARuneBoundary(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"fits", "hello", 5, "hello"},
		{"n past the end", "hello", 99, "hello"},
		{"empty", "", 3, ""},
		{"n zero", "hello", 0, ""},
		{"n negative", "hello", -1, ""},
		{"ascii", "hello world", 5, "hello"},
		{"after a two-byte rune", "aé!", 3, "aé"},
		{"inside a two-byte rune", "aé", 2, "a"},
		{"inside a three-byte rune", "a€", 3, "a"},
		{"inside a four-byte rune at its last byte", "ab😀", 5, "ab"},
		{"inside a four-byte rune at its second byte", "ab😀", 3, "ab"},
		{"first rune longer than n", "😀", 3, ""},
		{"after a whole four-byte rune", "é😀x", 6, "é😀"},
		{"a stray continuation byte counts one", "ab\x80\x80\x80\x80cd", 4, "ab\x80\x80"},
		{"only stray continuation bytes", "\x80\x80\x80\x80\x80\x80", 5, "\x80\x80\x80\x80\x80"},
		{"a stray byte after a whole rune", "😀\x80z", 4, "😀"},
		{"a stray lead byte counts one", "a\xe2bc", 2, "a\xe2"},
		{"a truncated sequence counts byte by byte", "a\xe2\x82bc", 3, "a\xe2\x82"},
		{"a rune after an invalid lead byte", "\xf0€z", 2, "\xf0"},
		{"an encoded U+FFFD is one rune", "a\uFFFDz", 2, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Cut(tt.in, tt.n))
			require.Equal(t, []byte(tt.want), Cut([]byte(tt.in), tt.n), "bytes cut alike")
		})
	}
}

// The cut of any bytes is the last offset at which range starts a rune (or
// the end) not after n, and on valid UTF-8 it is the cut every caller
// wrote by hand before: back off while the byte at n is not a rune start.
func TestCutEndsWhereRangeStartsARune(t *testing.T) {
	pieces := []string{"a", " ", "é", "€", "😀", "\uFFFD", "\x80", "\xbf", "\xc3", "\xe2", "\xe2\x82", "\xf0", "\xf0\x9f\x98", "\xff"}
	rapid.Check(t, func(t *rapid.T) {
		s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 12).Draw(t, "pieces"), "")
		n := rapid.IntRange(-2, len(s)+2).Draw(t, "n")
		got := Cut(s, n)
		want := 0
		if n >= len(s) {
			want = len(s)
		} else {
			for i := range s {
				if i <= n {
					want = i
				}
			}
		}
		if n <= 0 {
			want = 0
		}
		require.Equal(t, s[:want], got)
		if utf8.ValidString(s) && n >= 0 && n < len(s) {
			old := n
			for old > 0 && !utf8.RuneStart(s[old]) {
				old--
			}
			require.Equal(t, s[:old], got, "valid UTF-8 is cut as before")
			require.True(t, utf8.ValidString(got))
		}
	})
}
