package tracing

// Resolved returns the configuration New resolved, without opening.
func (t *Tracing) Resolved() Config { return t.cfg.clone() }
