package telemetry

// AccessLogger is the access log's logger name, which tests filter on.
const AccessLogger = accessLogger

// Scope is the instrumentation scope of the wrapper's metrics and spans.
const Scope = scope

// Method is the request method as telemetry names it.
var Method = methodName
