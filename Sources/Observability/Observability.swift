// Observability: structured logging and Prometheus metrics for Typeahead, injected, never global.
//
// Shape (after swift-log / swift-metrics): a tiny API type over a backend that the *caller* chooses.
// Libraries accept a `Logger` or a `MetricsRegistry`; only the executable decides where lines go
// (`StandardErrorSink`) and who scrapes the registry. Tests use `MemorySink` and read
// `MetricsRegistry.exposition()` directly.
//
//   Logging/   `Logger` (label, minimum level, metadata) → `LogRecord` → `LogSink`.
//              `LogFormat` renders one record as one line of logfmt or JSON Lines.
//              `RequestID` makes 16-hex-digit ids that are unique within the process.
//   Metrics/   `MetricsRegistry` owns named families: `Counter`, `Gauge`, `Histogram`, and callback
//              gauges read at exposition time. A family hands out one `Series` per label-value set;
//              a series is only atomics, so the hot path takes no lock once the caller holds it.
//
// Costs, in one paragraph: a disabled log call costs one comparison (message and metadata are
// autoclosures). An enabled call merges metadata, formats into one byte buffer and issues one
// write(2). `Counter.Series.increment()` is one relaxed atomic add; `Gauge.Series` and the
// histogram sum are compare-exchange loops on a Double's bit pattern; `labels(_:)` is a dictionary
// lookup under the family's own mutex (not the registry's), so keep the series when it is hot.
