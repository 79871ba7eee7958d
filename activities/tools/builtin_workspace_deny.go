package tools

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultDeny returns the name patterns the file tools withhold unless
// WorkspaceOptions.Deny says otherwise. A workspace is often a checkout or
// a home directory, and these are where they keep their secrets:
//
//   - dotfiles and dot-directories: .env*, .git (and .git-credentials),
//     .ssh, .aws, .gnupg, .docker, .kube, .netrc, .pgpass, .npmrc, .pypirc;
//     .env* and the credential files are named too, so a list that drops
//     ".*" can keep them by taking DefaultDeny's other entries;
//   - private keys and certificate stores: *.pem, *.key, PKCS#12 (*.p12,
//     *.pfx), PKCS#8 (*.p8), PuTTY (*.ppk), Java key stores (*.jks,
//     *.keystore), KeePass databases (*.kdbx), Kerberos keytabs (*.keytab),
//     and every identity file the OpenSSH client reads by default (id_rsa,
//     id_dsa, id_ecdsa, id_ecdsa_sk, id_ed25519, id_ed25519_sk, id_xmss),
//     with their .pub and -cert.pub, which name the key's owner;
//   - credential files without a dot: AWS's and gcloud's credentials,
//     credentials.json and credentials.db, Google's client_secret*.json,
//     Windows' _netrc and pgpass.conf, and Terraform state (*.tfstate,
//     *.tfstate.*), which holds the secrets of what it manages.
func DefaultDeny() []string {
	return []string{
		".*", ".env*", ".netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc",
		"*.pem", "*.key", "*.p12", "*.pfx", "*.p8", "*.ppk", "*.jks", "*.keystore", "*.kdbx", "*.keytab",
		"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "id_xmss*",
		"credentials", "credentials.json", "credentials.db", "client_secret*.json", "_netrc", "pgpass.conf",
		"*.tfstate", "*.tfstate.*",
	}
}

// denyList matches path elements against name patterns, case-insensitively:
// on a case-insensitive file system ".ENV" opens ".env".
type denyList struct {
	patterns []string // lower case, valid filepath.Match patterns
}

// newDenyList validates patterns: each is a filepath.Match pattern for one
// name, never a path, since it applies to every element of a path.
func newDenyList(patterns []string) (denyList, error) {
	d := denyList{patterns: make([]string, 0, len(patterns))}
	for _, p := range patterns {
		if p == "" || strings.ContainsAny(p, `/\`) {
			return denyList{}, fmt.Errorf("deny pattern %q: want a file name pattern such as *.pem, not a path", p)
		}
		if _, err := filepath.Match(p, ""); err != nil {
			return denyList{}, fmt.Errorf("deny pattern %q: %w", p, err)
		}
		d.patterns = append(d.patterns, strings.ToLower(p))
	}
	return d, nil
}

// match returns the pattern that denies a path relative to the root, if
// any: a denied directory withholds everything under it.
func (d denyList) match(rel string) (string, bool) {
	for _, name := range strings.Split(filepath.ToSlash(rel), "/") {
		if name == "" || name == "." {
			continue // the root itself; a local path has no ".."
		}
		if p, ok := d.matchName(name); ok {
			return p, true
		}
	}
	return "", false
}

// matchName returns the pattern that denies one name, if any.
func (d denyList) matchName(name string) (string, bool) {
	lower := strings.ToLower(name)
	for _, p := range d.patterns {
		if ok, _ := filepath.Match(p, lower); ok {
			return p, true
		}
	}
	return "", false
}

// check refuses a denied path with an error the model can read. It says the
// same whether or not the path exists.
func (d denyList) check(p, rel string) error {
	if pattern, ok := d.match(rel); ok {
		return modelErrorf("path %q is withheld: the workspace denies names matching %q", p, pattern)
	}
	return nil
}
