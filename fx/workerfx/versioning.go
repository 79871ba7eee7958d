package workerfx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.uber.org/fx"

	"github.com/tetherdev/tether/fx/configfx"
)

// deploymentOptions are the worker's Worker Deployment Versioning options
// with --versioning: this build (BuildID) as a version of the deployment,
// every workflow Pinned unless registered otherwise (the agent workflow
// is, by workflows.RegisterVersioned).
func deploymentOptions(v configfx.VersioningConfig) (worker.DeploymentOptions, error) {
	if !v.On {
		return worker.DeploymentOptions{}, nil
	}
	id := BuildID()
	if id == "" {
		return worker.DeploymentOptions{}, errors.New("--versioning needs the build ID of this binary, and its executable could not be read")
	}
	return worker.DeploymentOptions{UseVersioning: true,
		Version:                   worker.WorkerDeploymentVersion{DeploymentName: v.DeploymentName, BuildID: id},
		DefaultVersioningBehavior: workflow.VersioningBehaviorPinned}, nil
}

// BootstrapWait bounds how long a versioned worker tries to make itself
// the current version of a deployment that has none.
const BootstrapWait = time.Minute

// bootstrapCurrent makes this build the deployment's current version when
// the deployment has none (its first versioned worker): otherwise no new
// agent would run until an operator ran `starter deployment current`. A
// deployment with a current version is left alone: making a new build
// current is the operator's decision. It runs in the background once the
// worker started (the version exists once the worker polled), and stops
// with the app.
func bootstrapCurrent(lc fx.Lifecycle, c client.Client, v configfx.VersioningConfig, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() {
				defer close(done)
				if err := makeCurrentIfNone(ctx, c, v.DeploymentName, BuildID()); err != nil && ctx.Err() == nil {
					log.Warn("Versioned worker could not check the deployment's current version", "deployment", v.DeploymentName, "error", err)
				}
			}()
			return nil
		},
		OnStop: func(context.Context) error {
			cancel()
			<-done
			return nil
		},
	})
}

// makeCurrentIfNone sets buildID current in deployment unless it has a
// current version, retrying until the version is registered or
// BootstrapWait passes.
func makeCurrentIfNone(ctx context.Context, c client.Client, deployment, buildID string) error {
	ctx, cancel := context.WithTimeout(ctx, BootstrapWait)
	defer cancel()
	h := c.WorkerDeploymentClient().GetHandle(deployment)
	var last error
	for {
		d, err := h.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
		if err == nil && d.Info.RoutingConfig.CurrentVersion != nil {
			return nil
		}
		if err == nil {
			_, err = h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: buildID, ConflictToken: d.ConflictToken})
			if err == nil {
				return nil
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("make %s current in %s: %w", buildID, deployment, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
