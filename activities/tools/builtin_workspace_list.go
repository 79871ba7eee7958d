package tools

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

const listMaxEntries = 1000

const listFilesParams = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "maxLength": 4096, "description": "Directory relative to the workspace root (default \".\")."}
  },
  "additionalProperties": false
}`

func (w *workspace) listFilesTool() Tool {
	return Tool{
		Name:        "list_files",
		Description: "List a directory in the workspace, sorted by name. Directories end with \"/\".",
		Parameters:  []byte(listFilesParams),
		Mode:        Parallel,
		Local:       true,
		Idempotent:  true, // lists only
		Run:         w.listFiles,
	}
}

func (w *workspace) listFiles(_ context.Context, call Call) (Result, error) {
	var args struct {
		Path string `json:"path"`
	}
	if err := decodeArgs(call, &args); err != nil {
		return Result{}, err
	}
	if args.Path == "" {
		args.Path = "."
	}
	rel, err := w.resolve(args.Path)
	if err != nil {
		return Result{}, err
	}
	f, fi, err := w.open(args.Path, rel)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	if !fi.IsDir() {
		return Result{}, modelErrorf("%q is not a directory; use read_file", args.Path)
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return Result{}, fmt.Errorf("list %s: %w", rel, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if _, denied := w.deny.matchName(e.Name()); denied {
			continue
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
	}
	return Result{Content: formatListing(names)}, nil
}

// formatListing shows at most listMaxEntries names.
func formatListing(names []string) string {
	if len(names) == 0 {
		return "(empty directory)"
	}
	shown := names[:min(len(names), listMaxEntries)]
	out := strings.Join(shown, "\n")
	if rest := len(names) - len(shown); rest > 0 {
		out += fmt.Sprintf("\n[%d more entries not shown]", rest)
	}
	return out
}
