package deps

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cut are module paths the embedded Temporal server links only for the
// worker controller's compute providers (Kubernetes, AWS ECS, Lambda and
// Bedrock AgentCore, Google Cloud Run), which Tether never enables. The
// go.mod replacement of go.temporal.io/auto-scaled-workers with the copy in
// autoscaledworkers/, which leaves the providers out, keeps them out of the
// binaries: a third of the packages a cold build compiled.
var cut = []string{
	"k8s.io/",
	"sigs.k8s.io/",
	"github.com/aws/aws-sdk-go-v2/service/ecs",
	"github.com/aws/aws-sdk-go-v2/service/lambda",
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentcore",
	"cloud.google.com/go/run",
}

func TestTheBinariesLinkNoComputeProviderOfTheWorkerController(t *testing.T) {
	for _, cmd := range []string{"cmd/worker", "cmd/starter"} {
		t.Run(cmd, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/"+cmd).CombinedOutput()
			require.NoError(t, err, string(out))
			for _, dep := range strings.Fields(string(out)) {
				for _, c := range cut {
					require.False(t, strings.HasPrefix(dep, c), "%s links %s", cmd, dep)
				}
			}
		})
	}
}

func TestTheWorkerControllerIsTheTrimmedCopy(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{with .Replace}}{{.Path}}{{end}}", "go.temporal.io/auto-scaled-workers").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "./internal/deps/autoscaledworkers", strings.TrimSpace(string(out)))
	out, err = exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/cmd/worker").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, strings.Fields(string(out)), "go.temporal.io/auto-scaled-workers/wci/workercomponent",
		"the server's worker service still runs the worker controller's workflows")
}
