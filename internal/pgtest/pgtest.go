// Package pgtest starts a real PostgreSQL server for a test, from the
// Debian (or any) binaries: initdb and pg_ctl on PATH, or the newest
// /usr/lib/postgresql/*/bin, or $TETHER_PG_BIN. The server has a data
// directory of its own, listens on a free loopback port and on a Unix
// socket in that directory, admits one user by password, and is stopped
// and deleted when the test ends.
//
// Without PostgreSQL the test fails, so a machine that lacks it cannot
// pass by skipping: install it (apt-get install postgresql; .ci/run does),
// or set TETHER_TEST_NO_POSTGRES=1 to skip on purpose. As root the server
// runs as the postgres system user (PostgreSQL refuses root), via runuser.
package pgtest

import (
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// EnvSkip, set to 1, skips tests that need PostgreSQL where it is absent.
const EnvSkip = "TETHER_TEST_NO_POSTGRES"

// EnvBin names the directory of initdb and pg_ctl.
const EnvBin = "TETHER_PG_BIN"

// Server is a running PostgreSQL server.
type Server struct {
	// DSN connects as the server's one user to its postgres database
	// over TCP on loopback.
	DSN string
	// Dir is the directory holding the data directory and the socket.
	Dir string
}

// Start runs a server for t and stops it when t ends.
func Start(t testing.TB) Server {
	t.Helper()
	bin := find()
	if bin == "" {
		if os.Getenv(EnvSkip) == "1" {
			t.Skip("PostgreSQL is not installed and " + EnvSkip + "=1")
		}
		t.Fatal("PostgreSQL is not installed (no initdb on PATH, in /usr/lib/postgresql/*/bin or $" + EnvBin +
			"): apt-get install postgresql, or set " + EnvSkip + "=1 to skip")
	}
	dir, err := os.MkdirTemp("", "tether-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	run := runner(t, dir)
	password := rand.Text()
	pwfile := filepath.Join(dir, "password")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	chownToPostgres(t, pwfile)
	data := filepath.Join(dir, "data")
	run(filepath.Join(bin, "initdb"), "-D", data, "-U", "tether", "--auth=scram-sha-256",
		"--pwfile="+pwfile, "-E", "UTF8", "--no-locale", "--no-sync")
	port := freePort(t)
	run(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "postgres.log"), "-w", "-t", "60",
		"-o", fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s -c fsync=off", port, dir),
		"start")
	t.Cleanup(func() { run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop") })
	return Server{
		DSN: fmt.Sprintf("postgres://tether:%s@127.0.0.1:%d/postgres?sslmode=disable", password, port),
		Dir: dir,
	}
}

// find is the directory of initdb and pg_ctl, or "".
func find() string {
	if d := os.Getenv(EnvBin); d != "" {
		return d
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) < version(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p)
		}
	}
	return ""
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// runner runs a PostgreSQL command as the owner of dir's server: the
// test's user, or postgres when the test runs as root, which then owns
// dir (mode 0700, so no one else reads the data or the password).
func runner(t testing.TB, dir string) func(name string, args ...string) {
	chownToPostgres(t, dir)
	return func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		if os.Geteuid() == 0 {
			cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
			t.Fatalf("%s: %v\n%s\n%s", filepath.Base(name), err, out, log)
		}
	}
}

func chownToPostgres(t testing.TB, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("running as root needs the postgres system user (Debian's postgresql package makes it): %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(path, uid, gid); err != nil {
		t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
