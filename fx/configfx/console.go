package configfx

import (
	"errors"
	"flag"
)

// Console defaults.
const (
	// DefaultConsoleAddr is where --dev serves the web console.
	DefaultConsoleAddr = "127.0.0.1:8280"
	// EnvConsoleToken holds the console's operator token.
	EnvConsoleToken = "TETHER_CONSOLE_TOKEN"
)

// ConsoleConfig configures the web console --dev serves beside the Web UI.
type ConsoleConfig struct {
	// Addr is where it listens; empty serves none. With --dev and the Web
	// UI it defaults to DefaultConsoleAddr.
	Addr string
	// Token is the operator token (TETHER_CONSOLE_TOKEN); empty keeps the
	// console read-only.
	Token string
}

// resolveConsole serves the console beside the Web UI: with --dev and a UI,
// unless --console-addr says otherwise (a free port when the UI takes
// one).
func (c *Config) resolveConsole(fs *flag.FlagSet, env func(string) string) {
	c.Console.Token = env(EnvConsoleToken)
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "console-addr" })
	switch {
	case set:
	case !c.Dev || c.UIPort == 0:
		c.Console.Addr = ""
	case c.UIPort < 0:
		c.Console.Addr = "127.0.0.1:0"
	}
}

func (c Config) validateConsole() []error {
	if c.Console.Addr != "" && !c.Dev {
		return []error{errors.New("--console-addr needs --dev; against a cluster, run `starter console`")}
	}
	return nil
}
