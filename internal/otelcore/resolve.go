package otelcore

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Resolve checks the shared settings of cfg (a *Config), fills their
// defaults, resolves exporter auto (otlp-http with an endpoint, else none)
// and refuses an exporter the binary does not link. The signal's own
// fields are the signal's to check. It never reads the environment: Load
// merged it in before.
func (s *Signal) Resolve(cfg any, src map[string]string) error {
	exp := reflect.ValueOf(cfg).Elem().FieldByName("Exporter")
	e := exportOf(cfg)
	asked := strings.ToLower(strings.TrimSpace(exp.String()))
	if asked == "" {
		asked = "auto"
	}
	if !slices.Contains(s.exporters(), asked) {
		return s.Fail(src, "exporter", "unknown exporter %q; use one of %s", exp.String(), strings.Join(s.exporters(), ", "))
	}
	var err error
	if e.ExportTimeout, err = s.Positive(src, e.ExportTimeout, s.ExportTimeout, "export_timeout"); err != nil {
		return err
	}
	if e.ShutdownTimeout, err = s.Positive(src, e.ShutdownTimeout, s.ShutdownTimeout, "shutdown_timeout"); err != nil {
		return err
	}
	if err := s.checkExport(e, src); err != nil {
		return err
	}
	chosen := asked
	if asked == "auto" {
		chosen = "none"
		if e.Endpoint != "" {
			chosen = "otlp-http"
		}
	}
	if err := s.checkLinked(chosen, asked, src); err != nil {
		return err
	}
	if chosen == "otlp-http" && e.Endpoint != "" {
		e.Endpoint = HTTPEndpoint(e.Endpoint, s.fields().Setting(src, "endpoint"), s.OTEL, s.path())
	}
	exp.SetString(chosen)
	return nil
}

// checkExport applies the endpoint, credential, header and attribute rules.
func (s *Signal) checkExport(e *Export, src map[string]string) error {
	if err := s.fault(src, CheckServiceName(e.ServiceName)); err != nil {
		return err
	}
	var endpointUser bool
	if e.Endpoint != "" {
		user, f := e.basic().CheckEndpoint()
		if f != nil {
			return s.fault(src, f)
		}
		endpointUser = user
	}
	if err := s.fault(src, e.basic().CheckBasicAuth(endpointUser)); err != nil {
		return err
	}
	if err := CheckHeaders(e.Headers); err != nil {
		return s.Fail(src, "headers", "%v", err)
	}
	if HasHeader(e.Headers, "authorization") && e.basic().AuthorizationHeader() != "" {
		return s.Fail(src, "headers", "an Authorization header and Basic credentials are both set; keep one")
	}
	for k := range e.ResourceAttributes {
		if strings.TrimSpace(k) == "" {
			return s.Fail(src, "resource_attributes", "an attribute has an empty key")
		}
	}
	return nil
}

// checkLinked refuses an exporter whose leaf package the binary does not
// import: the fix is an import, and the message names both the setting
// that chose the exporter and the import to add. When auto chose it, the
// setting is the endpoint's: that is what the user wrote.
func (s *Signal) checkLinked(chosen, asked string, src map[string]string) error {
	if !slices.Contains(s.Linkable, chosen) || s.Linked(chosen) {
		return nil
	}
	fix := fmt.Sprintf("add import _ %q", s.leaf(chosen))
	if s.AllLeaves != "" {
		fix += fmt.Sprintf(" (or _ %q to link every exporter)", s.AllLeaves)
	}
	if asked == "auto" {
		return s.Fail(src, "endpoint", "an endpoint makes exporter auto resolve to %s, which is not linked into this binary; %s", chosen, fix)
	}
	return s.Fail(src, "exporter", "the %s exporter is not linked into this binary; %s", chosen, fix)
}

// Positive is d, or def when d is zero and no variable or option set it;
// it refuses a duration that is not positive.
func (s *Signal) Positive(src map[string]string, d, def time.Duration, spec string) (time.Duration, error) {
	if _, given := src[spec]; d == 0 && !given {
		return def, nil
	}
	if d <= 0 {
		return d, s.Fail(src, spec, "must be a positive duration, got %v", d)
	}
	return d, nil
}
