package scripted

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/tetherdev/tether/activities/llm"
)

var (
	// fileRef is a file name: a path ending in an extension files have, or
	// one of the names projects keep without one. go.mod and go.sum are
	// file names, not a command or a module.
	fileRef = regexp.MustCompile(`(?:[\w.-]+/)*(?:[\w-][\w.-]*\.(?:txt|md|json|go|mod|sum|work|yaml|yml|toml|ini|cfg|conf|csv|tsv|log|py|js|ts|sh|html|css|xml|rs|c|h|sql|proto|env|lock)|Makefile|Dockerfile|LICENSE)\b`)
	arith   = regexp.MustCompile(`\d[\d.\s]*[-+*/^%][\d.\s()+*/^%-]*\d`)
)

// pick chooses tools for a prompt without directives, among offered tools.
// Dates in the prompt are dates: they ask for the clock, never arithmetic.
func pick(prompt string, offered []llm.ToolSpec) []call {
	has := map[string]bool{}
	for _, t := range offered {
		has[t.Name] = true
	}
	dates, rest := splitDates(prompt)
	lower := strings.ToLower(rest)
	var out []call
	add := func(name string, args any) {
		if has[name] {
			raw, _ := json.Marshal(args)
			out = append(out, call{name: name, args: raw})
		}
	}
	if len(dates) > 0 || strings.Contains(lower, "time") || strings.Contains(lower, "date") || strings.Contains(lower, "day") {
		add("current_time", map[string]any{})
	}
	if f := fileRef.FindString(rest); f != "" {
		add("read_file", map[string]any{"path": f})
	} else if strings.Contains(lower, "file") {
		add("list_files", map[string]any{})
	}
	if e := arith.FindString(rest); e != "" {
		add("calculate", map[string]any{"expression": strings.TrimSpace(e)})
	}
	if len(out) == 0 && len(offered) > 0 {
		add("current_time", map[string]any{})
	}
	return out
}
