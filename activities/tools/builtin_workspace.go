package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// workspace confines read-only file access to one directory tree.
type workspace struct {
	root  string // absolute, symlinks resolved
	alias string // absolute as given; absolute paths under it are accepted too
	deny  denyList
	// hardLinks lets read_file read a regular file with more than one name.
	hardLinks bool
	maxRead   int // read_file's output cap; 0: readMaxBytes
}

// WorkspaceOptions configures the file tools. The zero value is invalid:
// Root is required, since no directory (least of all the worker's current
// one) is safe to expose by default.
type WorkspaceOptions struct {
	// Root is the directory the tools are confined to.
	Root string
	// Deny lists file name patterns (filepath.Match syntax, matched
	// case-insensitively against every element of a path) that are neither
	// listed nor read. nil means DefaultDeny(); an empty, non-nil slice
	// denies nothing.
	Deny []string
	// AllowHardLinks lets read_file read a regular file that has more than
	// one name (a link count over 1). By default such a file is refused: a
	// hard link looks like any file of the workspace, yet another of its
	// names may lie outside it (a user's ~/.aws/credentials linked in), and
	// nothing short of searching every file system finds where. Set it for
	// a tree its owner hard-linked on purpose (a pnpm store's node_modules,
	// a cp -l snapshot).
	AllowHardLinks bool
	// MaxReadBytes caps what one read_file call returns (0:
	// DefaultReadMaxBytes); the call then says at which offset to go on.
	// Keep it within the registry's result cap, which would cut it.
	MaxReadBytes int
}

// Workspace returns the read-only "read_file" and "list_files" tools,
// confined to o.Root: a path that escapes it (through "..", an absolute path
// or a symlink), that the deny list withholds, or (unless AllowHardLinks) a
// file with more than one hard link is refused with a model-visible error,
// and list_files leaves denied names out.
func Workspace(o WorkspaceOptions) ([]Tool, error) {
	w, err := newWorkspace(o)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", o.Root, err)
	}
	return []Tool{w.readFileTool(), w.listFilesTool()}, nil
}

func newWorkspace(o WorkspaceOptions) (*workspace, error) {
	if o.Root == "" {
		return nil, errors.New("empty root")
	}
	if o.Deny == nil {
		o.Deny = DefaultDeny()
	}
	deny, err := newDenyList(o.Deny)
	if err != nil {
		return nil, err
	}
	alias, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, err
	}
	resolved, err := filepath.EvalSymlinks(alias)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, errors.New("not a directory")
	}
	if o.MaxReadBytes < 0 {
		return nil, errors.New("negative read cap")
	}
	return &workspace{root: resolved, alias: alias, deny: deny, hardLinks: o.AllowHardLinks, maxRead: o.MaxReadBytes}, nil
}

// resolve maps a model-supplied path to a local path under w.root with every
// symlink resolved. The lexical checks come first, so a path that is outside
// or denied on its face never reaches the file system; the checks after
// EvalSymlinks catch symlinks that leave the root or lead to a denied name.
func (w *workspace) resolve(p string) (string, error) {
	rel, ok := w.lexicalRel(p)
	if !ok {
		return "", modelErrorf("path %q is outside the workspace", p)
	}
	if err := w.deny.check(p, rel); err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(filepath.Join(w.root, rel))
	if err != nil {
		return "", accessError(p, err)
	}
	rel, err = filepath.Rel(w.root, resolved)
	if err != nil || !filepath.IsLocal(rel) {
		return "", modelErrorf("path %q resolves outside the workspace", p)
	}
	if err := w.deny.check(p, rel); err != nil {
		return "", err
	}
	return rel, nil
}

// lexicalRel turns p into a path relative to the root, without touching the
// file system.
func (w *workspace) lexicalRel(p string) (string, bool) {
	if strings.ContainsRune(p, 0) {
		return "", false
	}
	if !filepath.IsAbs(p) {
		rel := filepath.Clean(p)
		return rel, filepath.IsLocal(rel)
	}
	for _, base := range []string{w.root, w.alias} {
		if rel, err := filepath.Rel(base, filepath.Clean(p)); err == nil && filepath.IsLocal(rel) {
			return rel, true
		}
	}
	return "", false
}

// open opens a resolved local path (a regular file or a directory) through
// os.Root, which refuses to leave the root even if the tree changed since
// resolve.
func (w *workspace) open(p, rel string) (*os.File, fs.FileInfo, error) {
	root, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, nil, fmt.Errorf("open workspace root: %w", err)
	}
	defer root.Close()
	// Stat first: opening a FIFO would block and a device is not a file.
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, nil, accessError(p, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, nil, modelErrorf("%q is not a regular file or directory", p)
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, nil, accessError(p, err)
	}
	if err := w.checkLinks(p, f); err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// checkLinks refuses a regular file with more than one name unless the
// workspace allows hard links. It reads the link count of the open file,
// not of the path, so a file swapped in after resolve is checked too.
func (w *workspace) checkLinks(p string, f *os.File) error {
	if w.hardLinks {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return accessError(p, err)
	}
	if n := linkCount(fi); fi.Mode().IsRegular() && n > 1 {
		return modelErrorf("%q is withheld: it has %d hard links, and the workspace reads no file that may also be named outside it", p, n)
	}
	return nil
}

// accessError shows the model failures that retrying cannot fix and keeps
// the rest retryable.
func accessError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return modelErrorf("path %q does not exist", p)
	case errors.Is(err, fs.ErrPermission):
		return modelErrorf("path %q: permission denied", p)
	}
	return fmt.Errorf("access %q: %w", p, err)
}
