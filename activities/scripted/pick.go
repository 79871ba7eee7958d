package scripted

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/tetherdev/tether/activities/llm"
)

var (
	fileRef = regexp.MustCompile(`[\w./-]+\.(txt|md|json|go|yaml|yml|csv|log)\b`)
	arith   = regexp.MustCompile(`\d[\d.\s]*[-+*/^%][\d.\s()+*/^%-]*\d`)
)

// pick chooses tools for a prompt without directives, among offered tools.
func pick(prompt string, offered []llm.ToolSpec) []call {
	has := map[string]bool{}
	for _, t := range offered {
		has[t.Name] = true
	}
	lower := strings.ToLower(prompt)
	var out []call
	add := func(name string, args any) {
		if has[name] {
			raw, _ := json.Marshal(args)
			out = append(out, call{name: name, args: raw})
		}
	}
	if strings.Contains(lower, "time") || strings.Contains(lower, "date") || strings.Contains(lower, "day") {
		add("current_time", map[string]any{})
	}
	if f := fileRef.FindString(prompt); f != "" {
		add("read_file", map[string]any{"path": f})
	} else if strings.Contains(lower, "file") {
		add("list_files", map[string]any{})
	}
	if e := arith.FindString(prompt); e != "" {
		add("calculate", map[string]any{"expression": strings.TrimSpace(e)})
	}
	if len(out) == 0 && len(offered) > 0 {
		add("current_time", map[string]any{})
	}
	return out
}
