package transcript

import (
	"bytes"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// md renders CommonMark with GitHub's tables, strikethrough and autolinks.
// goldmark drops dangerous link schemes (javascript:, vbscript:, file:,
// data: other than images) unless told to be unsafe, which it never is
// here; rawEscaper shows raw HTML as text.
var md = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(rawEscaper{}, 100))),
)

// Markdown renders untrusted text (model output) as HTML. Raw HTML in it
// is escaped and shown as written, never interpreted.
func Markdown(text string) template.HTML {
	var b bytes.Buffer
	if err := md.Convert([]byte(text), &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(text) + "</pre>") //nolint:gosec // escaped
	}
	return template.HTML(b.String()) //nolint:gosec // goldmark output without raw HTML
}

// rawEscaper renders raw HTML nodes, inline and block, as escaped text.
// Registered at a higher priority than goldmark's HTML renderer, it
// replaces that renderer's functions for these two kinds.
type rawEscaper struct{}

func (rawEscaper) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRaw)
	reg.Register(ast.KindHTMLBlock, renderBlock)
}

func renderRaw(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			seg := segs.At(i)
			template.HTMLEscape(w, seg.Value(source))
		}
	}
	return ast.WalkSkipChildren, nil
}

func renderBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	b := n.(*ast.HTMLBlock)
	_, _ = w.WriteString("<pre class=\"raw-html\">")
	lines := b.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		template.HTMLEscape(w, seg.Value(source))
	}
	if b.HasClosure() {
		template.HTMLEscape(w, b.ClosureLine.Value(source))
	}
	_, _ = w.WriteString("</pre>\n")
	return ast.WalkSkipChildren, nil
}
