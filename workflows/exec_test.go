package workflows

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/tetherdev/tether/loop"
	"github.com/tetherdev/tether/signals"
)

// everyCommand holds one of each loop.Command; TestEveryCommandIsListed
// keeps it whole as the loop gains commands. The child refuses its options
// at once, so its start resolves and the test's workflow ends.
var everyCommand = []loop.Command{
	loop.Interrupt{}, loop.RunHooks{}, loop.ChooseModel{}, loop.DecidePreStep{},
	loop.ShapeRequest{}, loop.Recover{}, loop.CallModel{}, loop.Summarize{}, loop.StartTimer{},
	loop.CancelTimer{}, loop.StartChild{ChildID: "exec-child", Input: signals.AgentInput{Options: signals.AgentOptions{MaxSteps: -1}}},
	loop.SignalChild{}, loop.ReportToParent{}, loop.ListTools{},
	loop.RunToolPre{}, loop.StartTool{}, loop.RunToolPost{}, loop.AnswerMaintenance{},
	loop.ContinueAsNew{}, loop.Finish{}, loop.Fail{},
}

// The list names each type of the loop package that implements Command
// (has isCommand), read from the package's source.
func TestEveryCommandIsListed(t *testing.T) {
	files, err := filepath.Glob("../loop/*.go")
	require.NoError(t, err)
	var declared []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "isCommand" && fn.Recv != nil {
				declared = append(declared, "loop."+fn.Recv.List[0].Type.(*ast.Ident).Name)
			}
		}
	}
	var listed []string
	for _, c := range everyCommand {
		listed = append(listed, reflect.TypeOf(c).String())
	}
	slices.Sort(declared)
	slices.Sort(listed)
	require.NotEmpty(t, declared)
	require.Equal(t, declared, listed)
}

// unhandled is the start of exec's panic for a command it has no case for.
const unhandled = "workflows: exec has no case for command"

// execOne runs everyCommand[i] through a fresh run's exec and reports
// whether exec had no case for it. Other panics (a case meeting a zero
// command) are the case's own business: the command reached it.
func execOne(ctx workflow.Context, i int) (hit bool, _ error) {
	r := &run{cfg: Config{NoSearchAttributes: true}.withDefaults(), loop: loop.New(loop.Config{AgentID: "exec"}), root: ctx}
	r.sel, r.wake = workflow.NewSelector(ctx), workflow.NewBufferedChannel(ctx, 1)
	defer func() {
		if p := recover(); p != nil {
			s, _ := p.(string)
			hit = strings.HasPrefix(s, unhandled)
		}
	}()
	r.exec(ctx, everyCommand[i])
	return false, nil
}

func TestExecHasACaseForEveryCommand(t *testing.T) {
	for i, c := range everyCommand {
		t.Run(reflect.TypeOf(c).Name(), func(t *testing.T) {
			env := newHarness(t, func(signals.ModelInput) (signals.ModelOutput, error) { return answer("ok"), nil }).env
			env.RegisterWorkflow(execOne)
			env.ExecuteWorkflow(execOne, i)
			require.True(t, env.IsWorkflowCompleted())
			require.NoError(t, env.GetWorkflowError())
			var hit bool
			require.NoError(t, env.GetWorkflowResult(&hit))
			require.False(t, hit, "exec drops %T to its default", c)
		})
	}
}

// A command exec has no case for (nil is the one value of the closed set's
// interface that is no member) fails the workflow task with a panic that
// names it, instead of being dropped while the run waits for its outcome.
func TestExecFailsTheTaskOnACommandItHasNoCaseFor(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	execNone := func(ctx workflow.Context) error {
		r := &run{cfg: Config{NoSearchAttributes: true}.withDefaults(), loop: loop.New(loop.Config{AgentID: "exec"}), root: ctx}
		r.exec(ctx, nil)
		return nil
	}
	env.RegisterWorkflowWithOptions(execNone, workflow.RegisterOptions{Name: "execNone"})
	env.ExecuteWorkflow("execNone")
	require.True(t, env.IsWorkflowCompleted())
	var panicked *temporal.PanicError
	require.ErrorAs(t, env.GetWorkflowError(), &panicked)
	require.Contains(t, panicked.Error(), unhandled+" <nil>")
}
