package configfx

import (
	"crypto/rand"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/codec"
)

func keyEntry(t *testing.T, id string) string {
	t.Helper()
	b := make([]byte, codec.KeySize)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return id + ":" + base64.StdEncoding.EncodeToString(b)
}

func load(t *testing.T, args []string, env map[string]string) (Config, error) {
	t.Helper()
	return Load(args, func(k string) string { return env[k] }, io.Discard)
}

func TestWithoutCodecKeysNothingIsEncryptedOrServed(t *testing.T) {
	cfg, err := load(t, []string{"--dev"}, nil)
	require.NoError(t, err)
	require.False(t, cfg.Codec.Keys.Enabled())
	require.Empty(t, cfg.Codec.Addr)
}

func TestDevWithKeysServesTheCodecForTheEmbeddedUI(t *testing.T) {
	env := map[string]string{codec.EnvKeys: keyEntry(t, "old") + "," + keyEntry(t, "new"), codec.EnvKeyID: "new"}
	cfg, err := load(t, []string{"--dev", "--ui-port", "9233"}, env)
	require.NoError(t, err)
	require.Equal(t, "new", cfg.Codec.Keys.ActiveKeyID)
	require.Len(t, cfg.Codec.Keys.Keys, 2)
	require.Equal(t, DefaultDevCodecAddr, cfg.Codec.Addr)
	require.Equal(t, []string{"http://127.0.0.1:9233", "http://localhost:9233"}, cfg.Codec.Origins)

	cfg, err = load(t, []string{"--codec-addr", "0.0.0.0:8234", "--codec-origins", "https://ui.example.com"}, env)
	require.NoError(t, err)
	require.Equal(t, "0.0.0.0:8234", cfg.Codec.Addr)
	require.Equal(t, []string{"https://ui.example.com"}, cfg.Codec.Origins)
}

func TestCodecKeysLoadFromAPrivateKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(path, []byte(keyEntry(t, "k1")+"\n"), 0o600))
	cfg, err := load(t, []string{"--codec-key-file", path}, nil)
	require.NoError(t, err)
	require.Equal(t, "k1", cfg.Codec.Keys.Keys[0].ID)

	require.NoError(t, os.Chmod(path, 0o644))
	_, err = load(t, nil, map[string]string{codec.EnvKeyFile: path})
	require.ErrorIs(t, err, codec.ErrKeyFilePermissions)
}

func TestBadCodecConfigurationIsRefused(t *testing.T) {
	keys := map[string]string{codec.EnvKeys: keyEntry(t, "k1")}
	withToken := map[string]string{codec.EnvKeys: keyEntry(t, "k1"), EnvCodecAuthToken: "s3cret"}
	cases := map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"short key":           {nil, map[string]string{codec.EnvKeys: "k1:c2hvcnQ="}, `key "k1" is 5 bytes`},
		"unknown active key":  {[]string{"--codec-key-id", "k2"}, keys, `active key "k2" is not among`},
		"codec addr, no keys": {[]string{"--codec-addr", "127.0.0.1:0"}, nil, "--codec-addr needs keys"},
		"blank token":         {[]string{"--dev"}, map[string]string{codec.EnvKeys: keyEntry(t, "k1"), EnvCodecAuthToken: "                "}, "is only whitespace"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, tc.args, tc.env)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := load(t, []string{"--dev"}, withToken)
	require.NoError(t, err, "the embedded UI reaches a codec server with a token")
}

func TestTheWorkerRequiresBindingOnlyWhenTold(t *testing.T) {
	env := map[string]string{codec.EnvKeys: keyEntry(t, "k1")}
	cfg, err := load(t, nil, env)
	require.NoError(t, err)
	require.False(t, cfg.Codec.Keys.RequireBinding, "old histories stay readable by default")

	env[codec.EnvRequireBinding] = "true"
	cfg, err = load(t, nil, env)
	require.NoError(t, err)
	require.True(t, cfg.Codec.Keys.RequireBinding)

	env[codec.EnvRequireBinding] = "always"
	_, err = load(t, nil, env)
	require.ErrorContains(t, err, codec.EnvRequireBinding+`="always": want true or false`)
}
