package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// newSecretsWorkspace builds a workspace root holding the kinds of file a
// checkout keeps its secrets in, next to ordinary files, and returns a
// registry over it with opts' deny list.
func newSecretsWorkspace(t *testing.T, deny []string) (*Registry, string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"README.md":          "readme",
		".env":               "SECRET=env",
		".env.local":         "SECRET=local",
		".git/config":        "SECRET=git",
		"certs/server.pem":   "SECRET=pem",
		"certs/tls.KEY":      "SECRET=key",
		"home/id_rsa":        "SECRET=rsa",
		"home/id_rsa.pub":    "SECRET=pub",
		"home/.ssh/config":   "SECRET=ssh",
		"notes/.hidden.txt":  "SECRET=hidden",
		"notes/ordinary.txt": "ordinary",
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	require.NoError(t, os.Symlink(".env", filepath.Join(root, "innocent.txt")))
	require.NoError(t, os.Symlink(".git", filepath.Join(root, "cfg")))
	tools, err := Workspace(WorkspaceOptions{Root: root, Deny: deny})
	require.NoError(t, err)
	r, err := NewRegistry(tools...)
	require.NoError(t, err)
	return r, root
}

func withheld(path, pattern string) Result {
	return modelError(fmt.Sprintf("path %q is withheld: the workspace denies names matching %q", path, pattern))
}

func TestReadFileWithholdsDotfilesAndKeysByDefault(t *testing.T) {
	r, root := newSecretsWorkspace(t, nil)
	tests := []struct {
		path    string
		pattern string
	}{
		{".env", ".*"},
		{".env.local", ".*"},
		{".git/config", ".*"},
		{"certs/server.pem", "*.pem"},
		{"certs/tls.KEY", "*.key"},
		{"home/id_rsa", "id_rsa*"},
		{"home/id_rsa.pub", "id_rsa*"},
		{"home/.ssh/config", ".*"},
		{"notes/.hidden.txt", ".*"},
		{"./notes/../.env", ".*"},
		{filepath.Join(root, ".env"), ".*"},
		{".ENV", ".*"},
		{"innocent.txt", ".*"}, // a symlink to .env
		{"cfg/config", ".*"},   // through a symlink to .git
		{".no-such-file", ".*"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := execute(t, r, "read_file", map[string]any{"path": tt.path})
			require.Equal(t, withheld(tt.path, tt.pattern), got)
			require.NotContains(t, got.Content, "SECRET")
		})
	}
	require.Equal(t, Result{Content: "     1\tordinary\n"}, execute(t, r, "read_file", map[string]any{"path": "notes/ordinary.txt"}))
}

func TestListFilesLeavesDeniedNamesOut(t *testing.T) {
	r, _ := newSecretsWorkspace(t, nil)
	tests := []struct {
		path string
		want Result
	}{
		{".", Result{Content: "README.md\ncerts/\ncfg\nhome/\ninnocent.txt\nnotes/"}},
		{"certs", Result{Content: "(empty directory)"}},
		{"home", Result{Content: "(empty directory)"}},
		{"notes", Result{Content: "ordinary.txt"}},
		{".git", withheld(".git", ".*")},
		{"cfg", withheld("cfg", ".*")},
		{"home/.ssh", withheld("home/.ssh", ".*")},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			require.Equal(t, tt.want, execute(t, r, "list_files", map[string]any{"path": tt.path}))
		})
	}
}

func TestWorkspaceDenyListIsConfigurable(t *testing.T) {
	open, _ := newSecretsWorkspace(t, []string{})
	require.Equal(t, Result{Content: "     1\tSECRET=env\n"}, execute(t, open, "read_file", map[string]any{"path": ".env"}),
		"an empty deny list withholds nothing")
	require.Equal(t, Result{Content: ".hidden.txt\nordinary.txt"}, execute(t, open, "list_files", map[string]any{"path": "notes"}))

	own, _ := newSecretsWorkspace(t, []string{"*.TXT"})
	require.Equal(t, withheld("notes/ordinary.txt", "*.txt"), execute(t, own, "read_file", map[string]any{"path": "notes/ordinary.txt"}))
	require.Equal(t, Result{Content: "     1\tSECRET=pem\n"}, execute(t, own, "read_file", map[string]any{"path": "certs/server.pem"}),
		"a configured list replaces the default")
}

func TestWorkspaceRejectsBadDenyPatterns(t *testing.T) {
	for _, p := range []string{"", "secrets/*.txt", `a\b`, "[unclosed"} {
		_, err := Workspace(WorkspaceOptions{Root: t.TempDir(), Deny: []string{p}})
		require.ErrorContains(t, err, "deny pattern", "pattern %q", p)
	}
}

// Issue 20: the secrets a home directory or a checkout keeps beyond
// dotfiles, PEM files and RSA keys.
func TestReadFileWithholdsKeyStoresAndCredentialFilesByDefault(t *testing.T) {
	withheldByDefault := map[string]string{
		"home/.ssh/id_ed25519":           ".*",
		"keys/id_ed25519":                "id_ed25519*",
		"keys/id_ed25519.pub":            "id_ed25519*",
		"keys/id_ed25519_sk":             "id_ed25519*",
		"keys/id_ecdsa":                  "id_ecdsa*",
		"keys/id_ecdsa_sk-cert.pub":      "id_ecdsa*",
		"keys/id_dsa":                    "id_dsa*",
		"keys/id_xmss":                   "id_xmss*",
		"keys/ID_RSA":                    "id_rsa*",
		"certs/client.p12":               "*.p12",
		"certs/client.PFX":               "*.pfx",
		"certs/AuthKey.p8":               "*.p8",
		"keys/putty.ppk":                 "*.ppk",
		"java/store.jks":                 "*.jks",
		"java/release.keystore":          "*.keystore",
		"vault/passwords.kdbx":           "*.kdbx",
		"krb/http.keytab":                "*.keytab",
		".aws/credentials":               ".*",
		"aws/credentials":                "credentials",
		"gcloud/credentials.db":          "credentials.db",
		"gcp/credentials.json":           "credentials.json",
		"oauth/client_secret_123.json":   "client_secret*.json",
		"home/.netrc":                    ".*",
		"home/_netrc":                    "_netrc",
		"home/.pgpass":                   ".*",
		"postgresql/pgpass.conf":         "pgpass.conf",
		"home/.git-credentials":          ".*",
		"home/.npmrc":                    ".*",
		"infra/terraform.tfstate":        "*.tfstate",
		"infra/terraform.tfstate.backup": "*.tfstate.*",
	}
	readable := map[string]string{
		"src/credentials.go": "package src",
		"docs/keys.md":       "keys",
		"infra/main.tf":      "resource",
		"keys/identity.txt":  "id",
		"certs/README":       "certs",
	}
	root := t.TempDir()
	for name, content := range readable {
		writeFile(t, root, name, content)
	}
	for name := range withheldByDefault {
		writeFile(t, root, name, "SECRET")
	}
	tools, err := Workspace(WorkspaceOptions{Root: root})
	require.NoError(t, err)
	r, err := NewRegistry(tools...)
	require.NoError(t, err)
	for name, pattern := range withheldByDefault {
		require.Equal(t, withheld(name, pattern), execute(t, r, "read_file", map[string]any{"path": name}), name)
	}
	for name, content := range readable {
		require.Equal(t, Result{Content: "     1\t" + content + "\n"}, execute(t, r, "read_file", map[string]any{"path": name}), name)
	}
	for _, dir := range []string{"keys", "certs", "aws", "home", "java", "vault"} {
		got := execute(t, r, "list_files", map[string]any{"path": dir})
		for name := range withheldByDefault {
			if filepath.Dir(name) == dir {
				require.NotContains(t, got.Content, filepath.Base(name), dir)
			}
		}
	}
}

func writeFile(t *testing.T, root, name, content string) {
	t.Helper()
	path := filepath.Join(root, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}
