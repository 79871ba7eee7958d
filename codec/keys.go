package codec

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
)

// KeySize is the length of an AES-256 key in bytes.
const KeySize = 32

// Key is one named AES-256 key. Its String and GoString name only the ID,
// so key material does not end up in logs.
type Key struct {
	ID     string
	Secret []byte
}

func (k Key) String() string   { return "codec.Key(" + k.ID + ")" }
func (k Key) GoString() string { return k.String() }

// Config is a keyring: Keys decrypt, ActiveKeyID encrypts. The zero value
// configures no encryption.
type Config struct {
	Keys []Key
	// ActiveKeyID names the key that encrypts; empty picks the only key
	// when there is exactly one.
	ActiveKeyID string
	// RequireBinding refuses, in a workflow's context, an encrypted
	// payload bound to no workflow (version 1: written before binding, or
	// by the codec server's /encode naming no workflow) with a
	// *BindingError. It is the key rotation's last step, once every
	// history holding such payloads is closed and gone or rewritten;
	// without a context (the codec server's /decode, history readers)
	// they still decrypt.
	RequireBinding bool
}

// Enabled reports whether any key is configured.
func (c Config) Enabled() bool { return len(c.Keys) > 0 }

// keyIDPattern keeps IDs printable and free of the spec's separators.
var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Validate checks the keyring: unique well-formed IDs, 32-byte keys, and an
// active key among them.
func (c Config) Validate() error {
	if !c.Enabled() {
		if c.ActiveKeyID != "" {
			return fmt.Errorf("%w: active key %q named but no keys configured", ErrInvalidConfig, c.ActiveKeyID)
		}
		if c.RequireBinding {
			return fmt.Errorf("%w: %s set but no keys configured", ErrInvalidConfig, EnvRequireBinding)
		}
		return nil
	}
	seen := map[string]bool{}
	for _, k := range c.Keys {
		if !keyIDPattern.MatchString(k.ID) {
			return fmt.Errorf("%w: key ID %q: want 1-64 of A-Z a-z 0-9 . _ -", ErrInvalidConfig, k.ID)
		}
		if seen[k.ID] {
			return fmt.Errorf("%w: key ID %q configured twice", ErrInvalidConfig, k.ID)
		}
		seen[k.ID] = true
		if len(k.Secret) != KeySize {
			return fmt.Errorf("%w: key %q is %d bytes, want %d", ErrInvalidConfig, k.ID, len(k.Secret), KeySize)
		}
	}
	if _, err := c.active(); err != nil {
		return err
	}
	return nil
}

// active returns the ID of the encrypting key.
func (c Config) active() (string, error) {
	if c.ActiveKeyID == "" {
		if len(c.Keys) == 1 {
			return c.Keys[0].ID, nil
		}
		return "", fmt.Errorf("%w: %d keys configured: name the active one", ErrInvalidConfig, len(c.Keys))
	}
	for _, k := range c.Keys {
		if k.ID == c.ActiveKeyID {
			return k.ID, nil
		}
	}
	return "", fmt.Errorf("%w: active key %q is not among the configured keys", ErrInvalidConfig, c.ActiveKeyID)
}

// ParseKeys parses "id:base64key" entries separated by commas or newlines.
// Blank entries and lines starting with # are ignored. Errors name the
// entry's ID or position, never its key.
func ParseKeys(spec string) ([]Key, error) {
	var keys []Key
	for n, entry := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == '\n' }) {
		entry = strings.TrimSpace(entry)
		if entry == "" || strings.HasPrefix(entry, "#") {
			continue
		}
		id, b64, ok := strings.Cut(entry, ":")
		if !ok {
			return nil, fmt.Errorf("%w: key entry %d: want id:base64key", ErrInvalidConfig, n+1)
		}
		id = strings.TrimSpace(id)
		secret, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
		if err != nil {
			return nil, fmt.Errorf("%w: key %q is not standard base64", ErrInvalidConfig, id)
		}
		keys = append(keys, Key{ID: id, Secret: secret})
	}
	return keys, nil
}
