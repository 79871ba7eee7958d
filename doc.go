// Package tether is the public Go API for embedding Tether: a program that
// runs its own agent worker, with its own tools, hooks, child profiles and
// model providers, in about twenty lines and without knowing fx.
//
//	w, err := tether.NewWorker(tether.FromFlags(os.Args[1:]), tether.WithTools(lookup, order))
//	if err != nil {
//		log.Fatal(err)
//	}
//	log.Fatal(w.Run(context.Background()))
//
// It lives at the module's root so that its import path,
// github.com/tetherdev/tether, names the product and nothing else: the
// worker is what an embedding program wants of Tether, and a package named
// worker would collide with the Temporal SDK's. cmd/worker is built on it:
// FromFlags takes the same flags and environment as that binary, so a
// program built on this package is run and configured like it.
//
// The API is small on purpose and kept compatible: NewWorker, its Options
// and Worker's methods. The types it takes are those of the other packages
// meant for users (activities/tools for tools, hook for hooks, signals for
// profiles, activities for providers). WithFx passes fx options through for
// what the Options do not cover; fx's value groups and the fx/ packages are
// not part of the stable API.
//
// Invariants: a Worker runs at most once; NewWorker reports every
// configuration error before anything connects anywhere; Run never leaves
// the worker running after it returns.
package tether
