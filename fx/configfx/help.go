package configfx

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tetherdev/tether/codec"
	"github.com/tetherdev/tether/internal/forwarded"
)

// helpGroup is one section of `worker -h`: its flags in order, and the
// environment variables that configure the section without a flag.
type helpGroup struct {
	title string
	flags []string
	env   []string
}

// helpGroups order `worker -h`. Every flag is in one group (a test
// checks), so a new flag is placed where a reader looks for it.
var helpGroups = []helpGroup{
	{"server: the embedded one (--dev, --demo) or a cluster", []string{
		"dev", "data-dir", "port", "ui-port", "mutual-tls", "demo", "prompt", "address", "namespace", "no-search-attributes",
	}, []string{"TEMPORAL_API_KEY", "TEMPORAL_TLS_* (client certificate, server CA, server name)",
		"TEMPORAL_PROFILE and TEMPORAL_CONFIG_FILE (a profile of temporal.toml)"}},
	{"worker", []string{
		"task-queue", "v", "verbose", "workspace", "workspace-deny", "workspace-hard-links", "mcp-config", "a2a-config", "tool-timeout", "model-timeout",
		"heartbeat-timeout", "heartbeat-interval", "sticky-timeout", "deadlock-timeout", "cached-agents", "max-run-turns", "max-run-events",
		"stream-addr", "stream-url", "stream-tls-cert", "stream-tls-key", "stream-max-subscribers", "stream-max-per-stream",
	}, nil},
	{"providers", []string{
		"provider", "openai-base-url", "openai-api-key-env", "openai-model", "openai-cache-retention",
		"anthropic-base-url", "anthropic-model", "anthropic-cache-ttl",
	}, []string{OpenAIKeyEnv + " (the official OpenAI API)", CompatibleKeyEnv + " (any other --openai-base-url)", AnthropicKeyEnv}},
	{"console", []string{"console-addr", "console-tls-cert", "console-tls-key"},
		[]string{EnvConsoleToken + " (the operator token: set, every page needs a login and actions need it)", EnvAllowedHosts + " (more names the console and codec server are reached by)",
			forwarded.EnvTrustedProxies + " (addresses or CIDRs of the reverse proxies whose X-Forwarded-For/-Proto the console believes)"}},
	{"a2a: agents over the Agent2Agent protocol", []string{"a2a-addr", "a2a-url", "a2a-profiles", "a2a-tls-cert", "a2a-tls-key", "a2a-push-allow"},
		[]string{EnvA2AToken + " (the bearer token every call carries; unset, " + EnvConsoleToken + ")"}},
	{"codec: payload encryption", []string{"codec-key-file", "codec-key-id", "codec-addr", "codec-origins"},
		[]string{codec.EnvKeys + " (id:base64key,...)", EnvCodecAuthToken + " (the codec server's bearer token)",
			codec.EnvRequireBinding + " (true: workflows refuse payloads bound to no workflow; the key rotation's last step)"}},
	{"blobs: payloads too large for history", []string{"blob-dir", "blob-store", "blob-threshold"}, nil},
	{"caps: what of a result or reply the model sees", []string{"tool-result-max-bytes", "read-file-max-bytes", "mcp-result-max-bytes", "model-reply-max-bytes"}, nil},
	{"telemetry", []string{"otlp-endpoint", "otlp-protocol", "metrics-addr"}, nil},
	{"versioning: deploys that move agents at Continue-As-New", []string{"versioning", "deployment-name", "upgrade-after-turns"}, nil},
}

// flagEnv is the environment variable each flag's default comes from.
var flagEnv = map[string]string{
	"address": "TEMPORAL_ADDRESS", "namespace": "TEMPORAL_NAMESPACE",
	"provider": "TETHER_PROVIDER", "openai-base-url": "OPENAI_BASE_URL", "openai-model": "OPENAI_MODEL",
	"anthropic-base-url": "ANTHROPIC_BASE_URL", "anthropic-model": "ANTHROPIC_MODEL",
	"anthropic-cache-ttl": EnvAnthropicCacheTTL, "openai-cache-retention": EnvOpenAICacheRetention,
	"mcp-config": EnvMCPConfig, "a2a-config": EnvA2AConfig, "workspace-hard-links": EnvWorkspaceHardLinks, "console-tls-cert": EnvConsoleTLSCert, "console-tls-key": EnvConsoleTLSKey,
	"a2a-profiles": EnvA2AProfiles, "a2a-tls-cert": EnvA2ATLSCert, "a2a-tls-key": EnvA2ATLSKey, "a2a-push-allow": EnvA2APushAllow,
	"codec-key-file": codec.EnvKeyFile, "codec-key-id": codec.EnvKeyID,
	"blob-dir": EnvBlobDir, "blob-store": EnvBlobStore, "blob-threshold": EnvBlobThreshold,
	"tool-result-max-bytes": EnvToolResultMaxBytes, "read-file-max-bytes": EnvReadFileMaxBytes,
	"mcp-result-max-bytes": EnvMCPResultMaxBytes, "model-reply-max-bytes": EnvModelReplyMaxBytes,
	"versioning": EnvVersioning, "deployment-name": EnvDeploymentName, "upgrade-after-turns": EnvUpgradeAfterTurns,
	"otlp-endpoint": "OTEL_EXPORTER_OTLP_ENDPOINT", "otlp-protocol": "OTEL_EXPORTER_OTLP_PROTOCOL",
}

// printHelp writes `worker -h`: the flags by group, each with its
// default once and the variable it defaults from, then each group's
// variables that have no flag. A flag no group names comes last, under
// "other".
func printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: worker [flags]    (--dev: a local server and Web UI; --demo: one agent end to end)")
	placed := map[string]bool{}
	for _, g := range helpGroups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil {
				printFlag(w, f)
				placed[name] = true
			}
		}
		for _, v := range g.env {
			fmt.Fprintf(w, "  $%s\n", v)
		}
	}
	var other []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !placed[f.Name] {
			other = append(other, f)
		}
	})
	if len(other) > 0 {
		fmt.Fprintln(w, "\nother:")
		for _, f := range other {
			printFlag(w, f)
		}
	}
}

// printFlag writes one flag: name and kind, what it does, its default
// (unless its text already says it) and its variable.
func printFlag(w io.Writer, f *flag.Flag) {
	kind, usage := flag.UnquoteUsage(f)
	line := "  --" + f.Name
	if len(f.Name) == 1 {
		line = "  -" + f.Name
	}
	if kind != "" {
		line += " " + kind
	}
	var notes []string
	if !strings.Contains(usage, "(default") && !zeroDefault(f) {
		notes = append(notes, "default "+f.DefValue)
	}
	if v, ok := flagEnv[f.Name]; ok {
		notes = append(notes, "$"+v)
	}
	if len(notes) > 0 {
		usage += " [" + strings.Join(notes, "; ") + "]"
	}
	fmt.Fprintf(w, "%s\n      %s\n", line, usage)
}

// zeroDefault reports a default not worth printing: empty, false or 0.
func zeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "false", "0", "0s":
		return true
	}
	return false
}
