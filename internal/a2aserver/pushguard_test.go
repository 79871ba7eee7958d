package a2aserver

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

// Which addresses a push reaches by default, and what an allow-list
// entry opens: one address, a prefix, or a host name (checked by name).
func TestThePushGuardRefusesPrivateAddressesUnlessAllowed(t *testing.T) {
	g, err := newPushGuard([]string{"127.0.0.1", "10.9.0.0/16", "Hooks.Internal."})
	require.NoError(t, err)
	for addr, want := range map[string]string{
		"93.184.215.14":          "",
		"2606:4700::1111":        "",
		"127.0.0.1":              "",
		"127.0.0.2":              "a loopback address",
		"::1":                    "a loopback address",
		"10.9.3.4":               "",
		"10.8.3.4":               "a private address",
		"192.168.1.1":            "a private address",
		"::ffff:172.16.0.1":      "a private address",
		"fd00:ec2::254":          "a private address",
		"169.254.169.254":        "the cloud metadata address",
		"fe80::1":                "a link-local address",
		"100.64.0.1":             "a reserved address (100.64.0.0/10)",
		"0.0.0.0":                "the unspecified address",
		"224.0.0.251":            "a multicast address",
		"255.255.255.255":        "a reserved address (255.255.255.255/32)",
		"64:ff9b::a00:1":         "a reserved address (64:ff9b::/96)",
		"::ffff:169.254.169.254": "the cloud metadata address",
	} {
		require.Equal(t, want, g.allowedAddr(netip.MustParseAddr(addr)), addr)
	}
	require.True(t, g.allowedHost("hooks.internal"))
	require.False(t, g.allowedHost("other.internal"))

	for _, bad := range []string{"http://example.com", "10.0.0.0/33", "host:8080", "a@b"} {
		require.Error(t, CheckPushAllow([]string{bad}), bad)
	}
	require.NoError(t, CheckPushAllow([]string{"", " 127.0.0.1 ", "::1", "[::1]", "hooks.example.com"}))
}

// The guarded client checks the address it dials, not only the one the
// URL's host resolved to when the config was set: a receiver on
// loopback is refused at the connection unless the allow-list names it,
// and no redirect is followed.
func TestTheGuardedPushClientRefusesABlockedAddressWhenItDials(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
	}))
	defer srv.Close()
	closed, _ := newPushGuard(nil)
	guarded, _ := closed.clients(DefaultPushTimeout)
	_, err := guarded.Post(srv.URL, "application/json", nil)
	require.ErrorIs(t, err, errPushAddr)
	require.Zero(t, hits, "nothing reached the receiver")

	open, _ := newPushGuard([]string{"127.0.0.1"})
	guarded, _ = open.clients(DefaultPushTimeout)
	resp, err := guarded.Post(srv.URL, "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode, "the redirect is the answer, not followed")
	require.Equal(t, 1, hits)
}
