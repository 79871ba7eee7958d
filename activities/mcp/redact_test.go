package mcp

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRedactDropsWhatAURLMayHoldOfASecret(t *testing.T) {
	for in, want := range map[string]string{
		`Post "https://mcp.example/mcp?token=abc&x=1": dial tcp: refused`: `Post "https://mcp.example/mcp?…": dial tcp: refused`,
		`GET http://user:pw@host:8080/p#k failed`:                         `GET http://host:8080/p?… failed`,
		`Post "https://mcp.example/mcp": EOF`:                             `Post "https://mcp.example/mcp": EOF`,
		`no URL here`:                                                     `no URL here`,
		`two: http://a/?s=1 and https://b/x?t=2`:                          `two: http://a/?… and https://b/x?…`,
	} {
		require.Equal(t, want, redact(in), in)
	}
}

func TestARedactedErrorStillWrapsItsCause(t *testing.T) {
	err := redacted{err: errors.Join(errors.New(`Post "http://h/m?k=v"`), io.EOF)}
	require.ErrorIs(t, err, io.EOF)
	require.NotContains(t, err.Error(), "k=v")
}
