package authn

import (
	"go.uber.org/zap"
)

// settingsError is the error Open returns for invalid settings (a
// *ConfigError, or several joined), nil when they are valid: fxsvc
// reports it with the app's other settings ([SettingsError]).
func (v *JWTVerifier) settingsError() error { return v.err }

// setLogger gives the verifier a logger for its key-loading events when it
// was built without the Logger option; fxsvc.Authn gives it the app's
// logger (through the gate), so that a provider that is down or
// misconfigured is never a silent 503. It does nothing when Logger was
// given (the caller's choice wins), when l is nil, or once the verifier
// has been opened: the key loader reads its logger without a lock.
func (v *JWTVerifier) setLogger(l *zap.Logger) {
	if l == nil || v.cfg.loggerSet {
		return
	}
	m, loads := v.keys.(*keyManager)
	if !loads {
		// Static keys and invalid settings: nothing is loaded, nothing logged
		// in the background.
		v.cfg.logger = l
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running || m.exited != nil {
		return
	}
	v.cfg.logger, m.log = l, l
}
