package codec

import (
	"errors"
	"fmt"
	"strings"
)

// Configuration errors, wrapped with the detail (never key material).
var (
	// ErrInvalidConfig marks malformed or inconsistent key configuration.
	ErrInvalidConfig = errors.New("invalid payload codec config")
	// ErrKeyFilePermissions marks a key file that users other than its
	// owner may access.
	ErrKeyFilePermissions = errors.New("key file is accessible to other users")
)

// UnknownKeyError is returned by Decode for a payload encrypted under a key
// this codec does not hold: a key removed too early, or a worker or client
// not given the newest key.
type UnknownKeyError struct {
	KeyID string   // the payload's key ID; empty when it names none
	Known []string // the IDs this codec holds
}

func (e *UnknownKeyError) Error() string {
	if e.KeyID == "" {
		return "encrypted payload names no key ID"
	}
	return fmt.Sprintf("payload encrypted with key %q, which is not configured (configured: %s)",
		e.KeyID, strings.Join(e.Known, ", "))
}

// DecryptError is returned by Decode for a payload that does not
// authenticate under the key it names: it was altered, or the key with
// that ID is not the key it was encrypted with.
type DecryptError struct {
	KeyID string
	Err   error
}

func (e *DecryptError) Error() string {
	return fmt.Sprintf("decrypt payload with key %q: %v", e.KeyID, e.Err)
}

func (e *DecryptError) Unwrap() error { return e.Err }

// BindingError is returned by a codec in one workflow's context for a
// payload bound to another workflow: ciphertext copied from one agent's
// history into a message to another. With Config.RequireBinding it is
// also returned for a payload bound to no workflow (Namespace and
// WorkflowID empty). The payload is not decrypted.
type BindingError struct {
	Namespace, WorkflowID         string // the payload's binding
	WantNamespace, WantWorkflowID string // the context's
}

func (e *BindingError) Error() string {
	if e.Namespace == "" && e.WorkflowID == "" {
		return fmt.Sprintf("encrypted payload is bound to no workflow (written before binding, or by a codec server's /encode that named none), and binding is required (%s): not decrypted for %q in %q",
			EnvRequireBinding, e.WantWorkflowID, e.WantNamespace)
	}
	return fmt.Sprintf("encrypted payload belongs to workflow %q in namespace %q, not to %q in %q",
		e.WorkflowID, e.Namespace, e.WantWorkflowID, e.WantNamespace)
}
