package signals_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tetherdev/tether/signals"
)

func TestDrawnIDsAreElevenLettersOrDigitsAndKeepAll64Bits(t *testing.T) {
	require.Equal(t, "00000000000", string(signals.DrawnID([8]byte{})))
	require.Equal(t, "LygHa16AHYF", string(signals.DrawnID([8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})))
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Uint64().Draw(t, "n")
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], n)
		id := string(signals.DrawnID(b))
		require.Len(t, id, signals.DrawnIDLen)
		require.NoError(t, signals.ValidateID(signals.DrawnID(b)))
		var back uint64 // base 62 read back: distinct bits give distinct IDs
		for _, c := range id {
			i := strings.IndexRune("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", c)
			require.GreaterOrEqual(t, i, 0, "%q in %q", c, id)
			back = back*62 + uint64(i)
		}
		require.Equal(t, n, back)
	})
}
