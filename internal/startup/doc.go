// Package startup turns a command's failure to start into one sentence on
// stderr that says what is wrong and what to do, with exit status 2. A
// user who typed a command wants "no Temporal server at 127.0.0.1:7233:
// start one, or run with --dev", not fx's dependency graph.
//
// Sources that know the fix (the fx constructors, the starter's dial)
// return an *Error; Explain finds it through any wrapping (fx's included)
// and otherwise maps a few known causes itself. The whole chain is still
// printed with a verbose flag.
//
// It never reads the environment and never prints a secret: sentences are
// built from addresses, flag names and causes the caller chose to show.
package startup
