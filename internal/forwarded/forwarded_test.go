package forwarded

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTakesAddressesAndPrefixes(t *testing.T) {
	got, err := Parse(" 10.0.0.1 , 192.168.0.0/16,::1,, 2001:db8::/32 ")
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32"), netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("2001:db8::/32")}, got)
	none, err := Parse("")
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = Parse("10.0.0.1,proxy.internal")
	require.EqualError(t, err, `trusted proxy "proxy.internal": want an IP address or a CIDR prefix`)
}

func TestAClientIsItsPeerUnlessTheProxyIsTrusted(t *testing.T) {
	ps, err := Parse("10.0.0.0/8")
	require.NoError(t, err)
	cases := []struct{ name, peer, xff, want string }{
		{"no proxy", "192.0.2.1:1", "", "192.0.2.1"},
		{"untrusted peer's header", "192.0.2.1:1", "198.51.100.1", "192.0.2.1"},
		{"trusted proxy", "10.0.0.1:1", "198.51.100.1", "198.51.100.1"},
		{"forged entry before the proxy's", "10.0.0.1:1", "203.0.113.9, 198.51.100.1", "198.51.100.1"},
		{"two proxies", "10.0.0.1:1", "198.51.100.1, 10.2.0.1", "198.51.100.1"},
		{"garbage hop", "10.0.0.1:1", "nonsense, 10.2.0.1", "10.2.0.1"},
		{"proxy without the header", "10.0.0.1:1", "", "10.0.0.1"},
		{"IPv6 by its /64", "[2001:db8:1:2:3:4:5:6]:1", "", "2001:db8:1:2::/64"},
		{"IPv4 in IPv6", "[::ffff:192.0.2.1]:1", "", "192.0.2.1"},
		{"IPv6 client behind a proxy", "10.0.0.1:1", "2001:db8:9:9::1", "2001:db8:9:9::/64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.peer
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			require.Equal(t, tc.want, Proxies(ps).ClientKey(r))
		})
	}
}

func TestOnlyATrustedProxySaysARequestCameOverTLS(t *testing.T) {
	ps, err := Parse("10.0.0.1")
	require.NoError(t, err)
	req := func(peer string, proto ...string) bool {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = peer
		for _, p := range proto {
			r.Header.Add("X-Forwarded-Proto", p)
		}
		return Proxies(ps).TLS(r)
	}
	require.True(t, req("10.0.0.1:1", "https"))
	require.True(t, req("10.0.0.1:1", "http, HTTPS"), "the nearest proxy's word counts")
	require.False(t, req("10.0.0.1:1", "https, http"))
	require.False(t, req("10.0.0.1:1"))
	require.False(t, req("192.0.2.1:1", "https"))
}
