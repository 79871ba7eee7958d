// Package text holds the one way Tether cuts a string to a byte budget:
// at a rune boundary, so a cut never leaves half a UTF-8 sequence at the
// end of a preview, an error message, a tool result or a listing.
//
// It uses the standard library only and does no I/O, so any package of
// the module may use it, signals and the workflow code included
// (internal/deps allows it everywhere). It never adds a marker: each
// caller says how a cut shows ("…", a notice of how much was kept).
package text
