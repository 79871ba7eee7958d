package codec

import (
	"fmt"
	"os"
	"strconv"
)

// Environment variables SourceFromEnv reads.
const (
	EnvKeys    = "TETHER_CODEC_KEYS"     // "id:base64key,id:base64key"
	EnvKeyFile = "TETHER_CODEC_KEY_FILE" // a file of such entries, mode 0600
	EnvKeyID   = "TETHER_CODEC_KEY_ID"   // the active key's ID
	// EnvRequireBinding "true" sets Config.RequireBinding.
	EnvRequireBinding = "TETHER_CODEC_REQUIRE_BINDING"
)

// KeySource says where the keys come from: inline entries or a key file,
// not both, and which key is active.
type KeySource struct {
	Inline   string
	File     string
	ActiveID string
	// RequireBinding is EnvRequireBinding's value: empty or a
	// strconv.ParseBool word; true sets Config.RequireBinding.
	RequireBinding string
}

// SourceFromEnv reads the key source from env (os.Getenv in a main).
func SourceFromEnv(env func(string) string) KeySource {
	return KeySource{Inline: env(EnvKeys), File: env(EnvKeyFile), ActiveID: env(EnvKeyID), RequireBinding: env(EnvRequireBinding)}
}

// Load reads and validates the keys. An empty source is the zero Config:
// no encryption.
func (s KeySource) Load() (Config, error) {
	var (
		keys []Key
		err  error
	)
	switch {
	case s.Inline != "" && s.File != "":
		return Config{}, fmt.Errorf("%w: keys given both inline (%s) and in a file (%s): use one", ErrInvalidConfig, EnvKeys, s.File)
	case s.File != "":
		keys, err = ReadKeyFile(s.File)
	default:
		keys, err = ParseKeys(s.Inline)
	}
	if err != nil {
		return Config{}, err
	}
	if (s.Inline != "" || s.File != "") && len(keys) == 0 {
		return Config{}, fmt.Errorf("%w: no keys in the configured source", ErrInvalidConfig)
	}
	c := Config{Keys: keys, ActiveKeyID: s.ActiveID}
	if s.RequireBinding != "" {
		if c.RequireBinding, err = strconv.ParseBool(s.RequireBinding); err != nil {
			return Config{}, fmt.Errorf("%w: %s=%q: want true or false", ErrInvalidConfig, EnvRequireBinding, s.RequireBinding)
		}
	}
	return c, c.Validate()
}

// ReadKeyFile reads ParseKeys entries from a regular file only its owner
// may access (mode 0600 or 0400).
func ReadKeyFile(path string) ([]Key, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: key file %s is not a regular file", ErrInvalidConfig, path)
	}
	if err := checkPrivate(path, info); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	keys, err := ParseKeys(string(data))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return keys, nil
}
