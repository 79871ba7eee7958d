// Command server runs a Temporal server on PostgreSQL with the Web UI
// (package cluster) until SIGINT or SIGTERM. scripts/cluster/run starts it;
// once it serves, it writes the frontend's address to --ready-file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	tlog "go.temporal.io/server/common/log"

	"github.com/tetherdev/tether/internal/cluster"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cluster server:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var o cluster.Options
	var passwordFile, readyFile string
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.StringVar(&o.Postgres.Addr, "pg-addr", "127.0.0.1:5432", "PostgreSQL host:port (with --pg-socket-dir, the port names the socket)")
	fs.StringVar(&o.Postgres.SocketDir, "pg-socket-dir", "", "directory of PostgreSQL's Unix socket (default: TCP to --pg-addr)")
	fs.StringVar(&o.Postgres.User, "pg-user", "temporal", "PostgreSQL user")
	fs.StringVar(&passwordFile, "pg-password-file", "", "file holding the PostgreSQL user's password")
	fs.StringVar(&o.Namespace, "namespace", cluster.DefaultNamespace, "namespace to register")
	fs.IntVar(&o.Shards, "shards", cluster.DefaultShards, "history shards (fixed when the cluster is created)")
	fs.StringVar(&o.IP, "ip", cluster.DefaultIP, "address every service binds to")
	fs.IntVar(&o.GRPCPort, "port", 0, "frontend gRPC port (0: a free one)")
	fs.IntVar(&o.UIPort, "ui-port", -1, "Web UI port (0: no UI, -1: a free one)")
	fs.StringVar(&o.LogLevel, "log-level", cluster.DefaultLogLevel, "server log level on stderr")
	fs.StringVar(&readyFile, "ready-file", "", "file to write TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEMPORAL_UI to once serving")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if passwordFile != "" {
		b, err := os.ReadFile(passwordFile)
		if err != nil {
			return fmt.Errorf("read --pg-password-file: %w", err)
		}
		o.Postgres.Password = strings.TrimSpace(string(b))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logger := tlog.NewZapLogger(tlog.BuildZapLogger(tlog.Config{Level: o.LogLevel}))
	srv, err := cluster.Start(ctx, o, logger)
	if err != nil {
		return err
	}
	ready := fmt.Sprintf("TEMPORAL_ADDRESS=%s\nTEMPORAL_NAMESPACE=%s\nTEMPORAL_UI=%s\n", srv.HostPort(), srv.Namespace(), srv.UIAddress())
	fmt.Fprint(os.Stderr, ready)
	if readyFile != "" {
		if err := writeAtomic(readyFile, ready); err != nil {
			return errors.Join(err, srv.Stop())
		}
	}
	<-ctx.Done()
	return srv.Stop()
}

// writeAtomic writes data to path so a reader never sees half of it.
func writeAtomic(path, data string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		return fmt.Errorf("write ready file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write ready file: %w", err)
	}
	return nil
}
