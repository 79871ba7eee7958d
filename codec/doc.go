// Package codec encrypts Temporal payloads with AES-256-GCM, so workflow
// inputs, signals, updates, activity inputs and results, queries, memo and
// Continue-As-New seeds are ciphertext at rest in the Temporal server.
//
// A Codec is a converter.PayloadCodec over a keyring: one active key
// encrypts, every configured key decrypts, so keys rotate by adding a new
// active key and keeping the old ones for as long as histories written
// under them exist. NewHandler serves the same codec to the Temporal Web UI
// and CLI (the remote codec protocol: POST …/encode and …/decode),
// resolving blob claims before it decodes when given a resolver
// (ServerOptions.ResolveClaims), and Configure puts it in a client's
// options.
//
// Invariants:
//   - an encrypted payload has metadata encoding "binary/encrypted" and
//     "encryption-key-id" naming its key; its data is a fresh random 96-bit
//     nonce, the ciphertext of the whole original payload (metadata and
//     data) and the GCM tag, authenticated together with the key ID;
//   - a payload encoded in a workflow's serialization context (everything
//     the SDK encodes for a workflow, its activities, children and the
//     workflows it signals) is bound to that namespace and workflow ID:
//     "encryption-version" "2", "encryption-namespace" and
//     "encryption-workflow-id" name them, and the GCM tag authenticates
//     them too. In another workflow's context it fails with *BindingError
//     and is never decrypted; without a context (the codec server, history
//     readers) it decrypts. A payload without "encryption-version" was
//     written before binding (or without a context) and decrypts
//     everywhere, so old histories replay, unless Config.RequireBinding
//     (TETHER_CODEC_REQUIRE_BINDING, the key rotation's last step) refuses
//     it in a workflow's context with *BindingError too;
//   - Configure's failure converter binds a failure's encoded message,
//     stack trace and details the same way (the SDK gives it the context
//     of the workflow or activity that failed, and of the child a parent
//     reads), so a failure copied into another workflow reads "Encoded
//     failure" there; the SDK ignores a message it cannot decode, so a
//     refused failure fails no workflow;
//   - the codec server's /encode binds only when the request names the
//     workflow (HeaderWorkflowID with HeaderNamespace): the Web UI and the
//     CLI name none in their requests, so what they encode is unbound; a codec that requires binding answers
//     such an /encode with 400 rather than make what every workflow
//     refuses;
//   - Encode leaves an encrypted payload as it is (never encrypts twice);
//     Decode leaves a payload without the encrypted marker as it is, so
//     histories written before encryption was enabled still decode;
//   - a payload under a key this codec does not hold fails with
//     *UnknownKeyError, a payload that does not authenticate with
//     *DecryptError; neither is ever passed on undecoded.
//
// It must never read the environment (callers pass a lookup function), take
// keys from workflow input, log or format key material, or accept a key
// file that other users may read.
package codec
