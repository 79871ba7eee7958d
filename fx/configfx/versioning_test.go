package configfx

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersioningFlagsAndTheirVariables(t *testing.T) {
	load := func(args []string, env map[string]string) (Config, error) {
		return Load(args, func(k string) string { return env[k] }, io.Discard)
	}
	c, err := load(nil, nil)
	require.NoError(t, err)
	require.Equal(t, VersioningConfig{}, c.Versioning, "off by default")
	require.Zero(t, c.Workflow.UpgradeAfterTurns)

	c, err = load([]string{"--versioning", "--upgrade-after-turns", "5"}, nil)
	require.NoError(t, err)
	require.Equal(t, VersioningConfig{On: true, DeploymentName: "tether"}, c.Versioning, "the deployment is the task queue by default")
	require.Equal(t, 5, c.Workflow.UpgradeAfterTurns)

	c, err = load([]string{"--versioning", "--task-queue", "agents", "--deployment-name", "fleet"}, nil)
	require.NoError(t, err)
	require.Equal(t, "fleet", c.Versioning.DeploymentName)

	env := map[string]string{EnvVersioning: "true", EnvDeploymentName: "from-env", EnvUpgradeAfterTurns: "3"}
	c, err = load(nil, env)
	require.NoError(t, err)
	require.Equal(t, VersioningConfig{On: true, DeploymentName: "from-env"}, c.Versioning)
	require.Equal(t, 3, c.Workflow.UpgradeAfterTurns)
	c, err = load([]string{"--versioning=false", "--upgrade-after-turns", "0", "--deployment-name", ""}, map[string]string{EnvVersioning: "true"})
	require.NoError(t, err)
	require.False(t, c.Versioning.On, "a flag given wins over its variable")

	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--upgrade-after-turns", "2"}, nil, "--upgrade-after-turns needs --versioning"},
		{[]string{"--versioning", "--upgrade-after-turns", "-1"}, nil, "--upgrade-after-turns must not be negative"},
		{[]string{"--versioning", "--upgrade-after-turns", "many"}, nil, `invalid value "many" for flag -upgrade-after-turns`},
		{[]string{"--deployment-name", "fleet"}, nil, "--deployment-name needs --versioning"},
		{[]string{"--versioning", "--deployment-name", "a.b"}, nil, `--deployment-name "a.b" must not hold ':', '.'`},
		{[]string{"--versioning", "--task-queue", "q:1"}, nil, `--deployment-name "q:1" must not hold`},
		{[]string{"--versioning", "--deployment-name", "x\ny"}, nil, "control characters"},
		{[]string{"--versioning", "--deployment-name", strings.Repeat("d", 256)}, nil, "is 256 bytes: at most 255"},
		{nil, map[string]string{EnvVersioning: "yes please"}, EnvVersioning + `="yes please": want true or false`},
		{nil, map[string]string{EnvVersioning: "1", EnvUpgradeAfterTurns: "x"}, EnvUpgradeAfterTurns + `="x": want a number of turns`},
	} {
		_, err := load(tc.args, tc.env)
		require.ErrorContains(t, err, tc.want, "%q %v", tc.args, tc.env)
	}
}
