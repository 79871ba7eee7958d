// Package login is the operator-token login that the console and the dev
// server's Web UI gate share: a constant-time token check, sessions held
// in this process behind a random cookie, a per-client limit on wrong
// tokens (a leaky bucket), the login form's POST and logout, and the
// post-login redirect kept on the site.
//
// It never stores or logs the token, never puts it in a cookie (a cookie
// holds only a random session ID, which logout and expiry delete, so a
// copied cookie stops working when its session ends), and holds nothing
// on disk: a restart logs everyone out. Each caller renders its own form
// and decides which client address a request counts under. Everything
// here is safe for concurrent use.
package login
