package codec

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func b64(k Key) string { return base64.StdEncoding.EncodeToString(k.Secret) }

func entry(k Key) string { return k.ID + ":" + b64(k) }

func TestKeySourceLoadsInlineKeysWithTheNamedActiveKey(t *testing.T) {
	a, b := newKey(t, "a"), newKey(t, "b")
	env := map[string]string{EnvKeys: entry(a) + ", " + entry(b), EnvKeyID: "b"}
	cfg, err := SourceFromEnv(func(k string) string { return env[k] }).Load()
	require.NoError(t, err)
	require.Equal(t, "b", cfg.ActiveKeyID)
	require.Equal(t, []Key{a, b}, cfg.Keys)
}

func TestEmptyKeySourceConfiguresNoEncryption(t *testing.T) {
	cfg, err := KeySource{}.Load()
	require.NoError(t, err)
	require.False(t, cfg.Enabled())
}

func TestMalformedKeyConfigurationIsRefused(t *testing.T) {
	a, b := newKey(t, "a"), newKey(t, "b")
	short := Key{ID: "short", Secret: a.Secret[:16]}
	cases := map[string]struct {
		src  KeySource
		want string
	}{
		"16-byte key":               {KeySource{Inline: entry(short)}, `key "short" is 16 bytes, want 32`},
		"not base64":                {KeySource{Inline: "a:not*base64"}, `key "a" is not standard base64`},
		"no colon":                  {KeySource{Inline: b64(a)}, "key entry 1: want id:base64key"},
		"empty ID":                  {KeySource{Inline: ":" + b64(a)}, `key ID ""`},
		"ID with spaces":            {KeySource{Inline: "my key:" + b64(a)}, `key ID "my key"`},
		"duplicate ID":              {KeySource{Inline: entry(a) + "," + entry(Key{ID: "a", Secret: b.Secret})}, `key ID "a" configured twice`},
		"two keys, none active":     {KeySource{Inline: entry(a) + "," + entry(b)}, "2 keys configured: name the active one"},
		"active key not configured": {KeySource{Inline: entry(a), ActiveID: "c"}, `active key "c" is not among`},
		"active key without keys":   {KeySource{ActiveID: "a"}, `active key "a" named but no keys`},
		"only separators":           {KeySource{Inline: " , "}, "no keys in the configured source"},
		"inline and file":           {KeySource{Inline: entry(a), File: "/etc/keys"}, "use one"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := tc.src.Load()
			require.ErrorIs(t, err, ErrInvalidConfig)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), b64(a), "errors never carry key material")
		})
	}
}

func writeKeyFile(t *testing.T, mode os.FileMode, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	require.NoError(t, os.Chmod(path, mode))
	return path
}

func TestKeyFileReadableByOthersIsRefused(t *testing.T) {
	content := entry(newKey(t, "a")) + "\n"
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660, 0o610} {
		t.Run(fmt.Sprintf("%04o", mode), func(t *testing.T) {
			_, err := KeySource{File: writeKeyFile(t, mode, content)}.Load()
			require.ErrorIs(t, err, ErrKeyFilePermissions)
			require.ErrorContains(t, err, "chmod 600")
		})
	}
}

func TestPrivateKeyFileWithCommentsLoads(t *testing.T) {
	a, b := newKey(t, "old"), newKey(t, "new")
	content := strings.Join([]string{"# rotated 2025-07", entry(a), "", entry(b), ""}, "\n")
	for _, mode := range []os.FileMode{0o600, 0o400} {
		cfg, err := KeySource{File: writeKeyFile(t, mode, content), ActiveID: "new"}.Load()
		require.NoError(t, err)
		require.Equal(t, []Key{a, b}, cfg.Keys)
	}
}

func TestMissingKeyFileIsAnError(t *testing.T) {
	_, err := KeySource{File: filepath.Join(t.TempDir(), "absent")}.Load()
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestFormattingAConfigNeverPrintsKeyMaterial(t *testing.T) {
	k := newKey(t, "k1")
	cfg := Config{Keys: []Key{k}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, cfg)
		require.Contains(t, out, "k1", verb)
		require.NotContains(t, out, b64(k), verb)
		require.NotContains(t, out, fmt.Sprint(k.Secret), verb)
	}
}
