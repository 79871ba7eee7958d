package configfx

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// VersioningConfig is Worker Deployment Versioning for the worker
// (--versioning): its runs are pinned to this build's version of the
// deployment, and an agent moves to the deployment's current version when
// it continues as new (package workflows, RegisterVersioned). Off by
// default: a versioned worker takes new agents only once its version is
// current (the worker makes itself current only in a deployment that has
// none), each rebuild is a version whose pinned agents wait for its worker
// until they are upgraded, and the deployment's name and behaviour in
// every workflow task's events cost history bytes (53 a turn measured
// with deployment "tether", about 4% of a plain turn).
type VersioningConfig struct {
	On bool
	// DeploymentName names the deployment; empty means the task queue.
	DeploymentName string
}

// Environment of versioning, read when its flags are not given.
const (
	EnvVersioning        = "TETHER_VERSIONING"
	EnvDeploymentName    = "TETHER_DEPLOYMENT_NAME"
	EnvUpgradeAfterTurns = "TETHER_UPGRADE_AFTER_TURNS"
)

func versioningFlags(fs *flag.FlagSet, c *Config) {
	fs.BoolVar(&c.Versioning.On, "versioning", false,
		"run with Worker Deployment Versioning: agents' runs are pinned to this build, and move to the deployment's current version when they continue as new")
	fs.StringVar(&c.Versioning.DeploymentName, "deployment-name", "", "the deployment of --versioning (default: the task queue)")
	fs.IntVar(&c.Workflow.UpgradeAfterTurns, "upgrade-after-turns", 0,
		"with --versioning: an agent whose run is pinned to a version that is no longer current continues as new after this many turns in the run (0: at its history limits or a starter upgrade)")
}

// resolveVersioning reads the variables of the flags not given and fills
// in the deployment's default name.
func (c *Config) resolveVersioning(fs *flag.FlagSet, env func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if v := env(EnvVersioning); v != "" && !given["versioning"] {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s=%q: want true or false", EnvVersioning, v)
		}
		c.Versioning.On = on
	}
	if v := env(EnvDeploymentName); v != "" && !given["deployment-name"] {
		c.Versioning.DeploymentName = v
	}
	if v := env(EnvUpgradeAfterTurns); v != "" && !given["upgrade-after-turns"] {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s=%q: want a number of turns", EnvUpgradeAfterTurns, v)
		}
		c.Workflow.UpgradeAfterTurns = n
	}
	if c.Versioning.On && c.Versioning.DeploymentName == "" {
		c.Versioning.DeploymentName = c.TaskQueue
	}
	return nil
}

func (c Config) validateVersioning() []error {
	var errs []error
	v := c.Versioning
	switch n := c.Workflow.UpgradeAfterTurns; {
	case n < 0:
		errs = append(errs, fmt.Errorf("--upgrade-after-turns must not be negative, not %d (0: no such limit)", n))
	case n > 0 && !v.On:
		errs = append(errs, errors.New("--upgrade-after-turns needs --versioning: without it no run is pinned, so there is no version to move to"))
	}
	if !v.On && v.DeploymentName != "" {
		errs = append(errs, errors.New("--deployment-name needs --versioning"))
	}
	// The server's limits on a deployment name: ':' and '.' separate it
	// from the build ID in a version's name.
	if len(v.DeploymentName) > 255 {
		errs = append(errs, fmt.Errorf("--deployment-name is %d bytes: at most 255", len(v.DeploymentName)))
	}
	if strings.ContainsAny(v.DeploymentName, ":./") || strings.ContainsFunc(v.DeploymentName, unicode.IsControl) {
		errs = append(errs, fmt.Errorf("--deployment-name %q must not hold ':', '.', '/' or control characters (the default is the task queue: pass one without them)", v.DeploymentName))
	}
	return errs
}
