package configfx

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/codec"
)

// Codec defaults and the environment variable of the codec server's token.
const (
	// DefaultDevCodecAddr serves the codec server with --dev when keys are
	// configured and --codec-addr is not given.
	DefaultDevCodecAddr = "127.0.0.1:8234"
	// EnvCodecAuthToken is the bearer token the codec server requires.
	EnvCodecAuthToken = "TETHER_CODEC_AUTH_TOKEN"
)

// CodecConfig configures payload encryption and the codec server. Keys
// come from TETHER_CODEC_KEYS or a key file, never from a flag's value.
type CodecConfig struct {
	// Keys encrypt payloads; none configured means no encryption.
	Keys codec.Config
	// Addr is where the worker serves the codec server for the Web UI and
	// CLI; empty serves none.
	Addr string
	// Origins may call the codec server from a browser: the Web UI's.
	Origins []string
	// Token is the bearer token the codec server requires; empty, the
	// server draws one (and refuses to serve beyond loopback).
	Token string
	// Hosts are more names the codec server is reached by
	// (TETHER_ALLOWED_HOSTS); others are refused.
	Hosts []string
}

// codecFlags holds the codec flags until Load resolves them.
type codecFlags struct{ keyFile, keyID, origins string }

func (f *codecFlags) register(fs *flag.FlagSet, env func(string) string, c *CodecConfig) {
	fs.StringVar(&f.keyFile, "codec-key-file", env(codec.EnvKeyFile),
		"file of id:base64key lines, mode 0600 (instead of "+codec.EnvKeys+")")
	fs.StringVar(&f.keyID, "codec-key-id", env(codec.EnvKeyID), "ID of the key that encrypts new payloads")
	fs.StringVar(&c.Addr, "codec-addr", "", "address serving the codec server for the Web UI and CLI (with --dev and keys: "+DefaultDevCodecAddr+")")
	fs.StringVar(&f.origins, "codec-origins", "", "comma-separated browser origins allowed to call the codec server (default: the Web UI's)")
}

// resolve loads the keys and fills in the defaults that depend on other
// flags.
func (f codecFlags) resolve(c *Config, env func(string) string) error {
	keys, err := codec.KeySource{Inline: env(codec.EnvKeys), File: f.keyFile, ActiveID: f.keyID,
		RequireBinding: env(codec.EnvRequireBinding)}.Load()
	if err != nil {
		return err
	}
	c.Codec.Keys = keys
	c.Codec.Token = env(EnvCodecAuthToken)
	c.Codec.Hosts = splitList(env(EnvAllowedHosts))
	if c.Codec.Addr == "" && c.Dev && keys.Enabled() {
		c.Codec.Addr = DefaultDevCodecAddr
	}
	c.Codec.Origins = uiOrigins(c.UIPort)
	if f.origins != "" {
		c.Codec.Origins = strings.Split(f.origins, ",")
	}
	return nil
}

// uiOrigins are the origins a browser sends from the embedded Web UI.
func uiOrigins(port int) []string {
	if port <= 0 {
		port = DefaultUIPort
	}
	return []string{fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://localhost:%d", port)}
}

func (c Config) validateCodec() []error {
	var errs []error
	if err := c.Codec.Keys.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Codec.Addr != "" && !c.Codec.Keys.Enabled() {
		errs = append(errs, fmt.Errorf("--codec-addr needs keys: set %s or --codec-key-file", codec.EnvKeys))
	}
	if c.Codec.Token != "" && strings.TrimSpace(c.Codec.Token) == "" {
		errs = append(errs, errors.New(EnvCodecAuthToken+" is only whitespace: set a real token, or unset it to have one drawn"))
	}
	return errs
}
