package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tetherdev/tether/internal/text"
)

const (
	readMaxLines     = 2000 // default and maximum lines per read
	readMaxBytes     = DefaultReadMaxBytes
	readMaxLineBytes = 4 << 10 // longer lines are cut
	binarySniffBytes = 8000    // as git: a NUL in the head means binary
)

var readFileParams = fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "File path relative to the workspace root."},
    "offset": {"type": "integer", "minimum": 1, "description": "1-based line to start at (default 1)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": %d, "description": "Maximum number of lines to return (default %d)."}
  },
  "required": ["path"],
  "additionalProperties": false
}`, readMaxLines, readMaxLines)

// DefaultReadMaxBytes is read_file's output cap unless
// WorkspaceOptions.MaxReadBytes says otherwise: below MaxResultBytes.
const DefaultReadMaxBytes = 48 << 10

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
	// maxBytes is the workspace's output cap (0: readMaxBytes), never
	// the model's to set.
	maxBytes int
}

func (w *workspace) readFileTool() Tool {
	return Tool{
		Name: "read_file",
		Description: "Read a text file in the workspace. Each line is prefixed with its line number and a tab. " +
			"Use offset and limit to page through long files.",
		Parameters: []byte(readFileParams),
		Mode:       Parallel,
		Local:      true,
		Idempotent: true, // reads only
		Run:        w.readFile,
	}
}

func (w *workspace) readFile(ctx context.Context, call Call) (Result, error) {
	args := readArgs{Offset: 1, Limit: readMaxLines}
	if err := decodeArgs(call, &args); err != nil {
		return Result{}, err
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
	if fi.IsDir() {
		return Result{}, modelErrorf("%q is a directory; use list_files", args.Path)
	}
	args.maxBytes = w.maxRead
	content, err := readLines(ctx, f, args)
	if err != nil {
		return Result{}, err
	}
	return Result{Content: content}, nil
}

// readLines renders lines [offset, offset+limit) numbered, within
// readMaxBytes, and says how to continue when more remain. Skipping to a far
// offset in a huge file takes a while, so it stops when ctx is done.
func readLines(ctx context.Context, r io.Reader, args readArgs) (string, error) {
	limit := args.maxBytes
	if limit <= 0 {
		limit = readMaxBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(binarySniffBytes); bytes.IndexByte(head, 0) >= 0 {
		return "", modelErrorf("%q is a binary file (contains NUL bytes); only text files can be read", args.Path)
	}
	var out strings.Builder
	n, shown := 0, 0
	for {
		line, ok, err := readLine(br)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", args.Path, err)
		}
		if !ok {
			return finishRead(&out, args, n, shown), nil
		}
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return "", fmt.Errorf("read %s: %w", args.Path, ctx.Err())
		}
		if n < args.Offset {
			continue
		}
		if strings.IndexByte(line, 0) >= 0 {
			return "", modelErrorf("%q is a binary file (contains NUL bytes); only text files can be read", args.Path)
		}
		entry := fmt.Sprintf("%6d\t%s\n", n, line)
		if shown == args.Limit || out.Len()+len(entry) > limit {
			fmt.Fprintf(&out, "[more lines follow; continue with offset=%d]", n)
			return out.String(), nil
		}
		out.WriteString(entry)
		shown++
	}
}

func finishRead(out *strings.Builder, args readArgs, total, shown int) string {
	switch {
	case total == 0:
		return "(empty file)"
	case shown == 0:
		return fmt.Sprintf("[offset %d is past the end: the file has %d lines]", args.Offset, total)
	}
	return out.String()
}

// readLine returns the next line without its line ending, cut to
// readMaxLineBytes on a UTF-8 boundary. ok is false at the end of input.
func readLine(br *bufio.Reader) (line string, ok bool, err error) {
	var buf []byte
	cut, read := false, 0
	for {
		chunk, err := br.ReadSlice('\n')
		read += len(chunk)
		if !cut {
			if room := readMaxLineBytes - len(buf); len(chunk) > room {
				chunk, cut = text.Cut(chunk, room), true
			}
			buf = append(buf, chunk...)
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil, io.EOF:
			return finishLine(buf, cut), read > 0, nil
		default:
			return "", false, err
		}
	}
}

func finishLine(buf []byte, cut bool) string {
	s := strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r")
	if cut {
		s += " [line truncated]"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
