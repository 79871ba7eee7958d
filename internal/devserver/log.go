package devserver

import (
	"os"

	tlog "go.temporal.io/server/common/log"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// serverLogger writes the server's JSON log to stderr at level. Stack traces
// are kept for debug only: an error line would otherwise carry ~60 frames.
// The level is adjustable so Stop can mute the burst of "context canceled"
// errors every service logs while shutting down.
func serverLogger(level string) (tlog.Logger, zap.AtomicLevel) {
	lvl := zap.NewAtomicLevelAt(tlog.ParseZapLevel(level))
	enc := tlog.DefaultZapEncoderConfig
	if lvl.Level() != zapcore.DebugLevel {
		enc.StacktraceKey = zapcore.OmitKey
	}
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(os.Stderr), lvl)
	return tlog.NewZapLogger(zap.New(core)), lvl
}
