package metrics

// ResolvedConfig exposes the resolved configuration without opening the
// component, so configuration tests need no exporter.
func ResolvedConfig(m *Metrics) Config { return m.cfg }
