package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/tetherdev/tether/blobstore"
	"github.com/tetherdev/tether/internal/startup"
)

// blobsGC deletes the blobs no history of the namespace references, past
// the grace: `starter blobs gc`. A command, not a job of every worker: it
// reads every history of the namespace, which one operator's run (or cron)
// should do once, not each of N workers; and it needs no worker running.
func blobsGC(_ Starter, args []string) (action, error) {
	fs := flag.NewFlagSet("blobs", flag.ContinueOnError)
	grace := fs.Duration("grace", blobstore.DefaultGrace, "keep blobs stored less than this long ago, referenced or not")
	dryRun := fs.Bool("dry-run", false, "report what would be deleted; delete nothing")
	pos, err := parse(fs, args, "gc")
	if err != nil {
		return nil, err
	}
	if pos[0] != "gc" {
		return nil, fmt.Errorf("%w: blobs %q: the one blobs command is gc", ErrUsage, pos[0])
	}
	if *grace < time.Minute {
		return nil, fmt.Errorf("%w: blobs gc: --grace %s is under a minute: a blob stored now may not be in history yet", ErrUsage, *grace)
	}
	return func(ctx context.Context, e env) error {
		st, closeStore, err := e.s.blobStore(ctx)
		if err != nil {
			return err
		}
		defer closeStore()
		if st == nil {
			return &startup.Error{Problem: "blobs gc needs the worker's blob store",
				Fix: "set " + blobstore.EnvDir + " to the worker's --blob-dir, or " + blobstore.EnvStore + " to its --blob-store"}
		}
		got, err := blobstore.Collect(ctx, e.conn.c.WorkflowService(), st, blobstore.CollectOptions{
			Namespace: e.conn.namespace, Grace: *grace, DryRun: *dryRun,
		})
		if err != nil {
			return fmt.Errorf("blobs gc: %w", err)
		}
		verb := "deleted"
		if *dryRun {
			verb = "would delete"
		}
		fmt.Fprintf(e.s.Out, "read %d workflows and %d schedules of namespace %s; of %d blobs, %d referenced, %d newer than %s, %s %d (%d bytes)\n",
			got.Workflows, got.Schedules, e.conn.namespace, got.Blobs, got.Referenced, got.Fresh, *grace, verb, got.Deleted, got.DeletedBytes)
		return nil
	}, nil
}

// Registered here, beside the command: commands.go lists the agent's.
func init() { commands["blobs"] = blobsGC }
