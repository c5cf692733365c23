import Synchronization

/// Owns named metric families and renders them in the Prometheus text format.
///
/// Create one registry per process (or per test) and inject it; libraries never make their own.
/// Registering is idempotent: asking again for a family with the same name, kind, label names
/// (and buckets) returns the existing one, so two components may both ask for it. A clash — same
/// name, different kind or labels — and invalid names are programming errors and trap.
///
/// Names follow Prometheus: metric names match `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names
/// `[a-zA-Z_][a-zA-Z0-9_]*` and must not start with `__`; a histogram may not use the label `le`.
///
/// The registry's mutex guards only the name → family map; it is held while registering and while
/// taking a snapshot for ``exposition()``, never on the update path.
///
/// ```swift
/// let registry = MetricsRegistry()
/// let requests = registry.counter(name: "typeahead_requests_total", help: "Requests handled.",
///                                 labelNames: ["method", "status"])
/// requests.labels(["method": "Suggest", "status": "OK"]).increment()
/// registry.gauge(name: "typeahead_open_connections", help: "Open connections.") { Double(server.connectionCount) }
/// print(registry.exposition())
/// ```
public final class MetricsRegistry: Sendable {
    /// The `Content-Type` of ``exposition()`` for an HTTP `/metrics` response.
    public static let expositionContentType = "text/plain; version=0.0.4; charset=utf-8"

    enum Family: Sendable {
        case counter(Counter)
        case gauge(Gauge)
        case histogram(Histogram)
        /// A value read at each scrape, exposed as a gauge or (monotonic) as a counter.
        /// Series computed at each exposition: their label values (in `labelNames`' order) and value.
        case callback(help: String, type: CallbackType, labelNames: [String], read: @Sendable () -> [CallbackSample])
    }

    private let families = Mutex<[String: Family]>([:])

    /// Creates an empty registry.
    public init() {}

    /// Returns the counter family `name`, registering it on first use.
    ///
    /// - Parameters:
    ///   - name: the metric name; by convention ends in `_total`.
    ///   - help: one line of `# HELP` text.
    ///   - labelNames: the labels every series must set; empty for a single unlabelled series.
    public func counter(name: String, help: String, labelNames: [String] = []) -> Counter {
        register(name: name, labelNames: labelNames) { existing in
            switch existing {
            case nil:
                let counter = Counter(name: name, help: help, labelNames: labelNames)
                return (.counter(counter), counter)
            case .counter(let counter)? where counter.labelNames == labelNames:
                return (nil, counter)
            default:
                Self.clash(name)
            }
        }
    }

    /// Returns the gauge family `name`, registering it on first use.
    public func gauge(name: String, help: String, labelNames: [String] = []) -> Gauge {
        register(name: name, labelNames: labelNames) { existing in
            switch existing {
            case nil:
                let gauge = Gauge(name: name, help: help, labelNames: labelNames)
                return (.gauge(gauge), gauge)
            case .gauge(let gauge)? where gauge.labelNames == labelNames:
                return (nil, gauge)
            default:
                Self.clash(name)
            }
        }
    }

    /// Returns the histogram family `name`, registering it on first use.
    ///
    /// - Parameter buckets: finite, strictly increasing upper bounds; `+Inf` is added implicitly.
    ///   Seconds from 50 µs to 10 s unless given.
    public func histogram(
        name: String,
        help: String,
        labelNames: [String] = [],
        buckets: [Double] = Histogram.defaultLatencyBuckets
    ) -> Histogram {
        precondition(!labelNames.contains("le"), "histogram \(name): the label name \"le\" is reserved")
        return register(name: name, labelNames: labelNames) { existing in
            switch existing {
            case nil:
                let histogram = Histogram(name: name, help: help, labelNames: labelNames, buckets: buckets)
                return (.histogram(histogram), histogram)
            case .histogram(let histogram)? where histogram.labelNames == labelNames && histogram.buckets == buckets:
                return (nil, histogram)
            default:
                Self.clash(name)
            }
        }
    }

    /// Registers a gauge whose value `read` computes at each ``exposition()``.
    ///
    /// For values that already live elsewhere: LMDB map size, open connections, queue depth.
    /// `read` runs on the scraping thread, outside the registry's lock (so it may itself use the
    /// registry), and should be quick. Registering a name twice traps.
    public func gauge(name: String, help: String, _ read: @escaping @Sendable () -> Double) {
        registerCallback(name: name, help: help, type: .gauge, labelNames: []) { [CallbackSample(labelValues: [], value: read())] }
    }

    /// Registers a family of gauges that `read` lists at each ``exposition()``, one sample per
    /// series (label values in `labelNames`' order): for a set of values that live elsewhere, such
    /// as each of a node's caches' bytes. Otherwise as ``gauge(name:help:_:)``.
    ///
    /// ```swift
    /// registry.gauge(name: "typeahead_cache_bytes", help: "Bytes each cache holds.", labelNames: ["cache"]) {
    ///     caches.map { CallbackSample(labelValues: [$0.name], value: Double($0.bytes)) }
    /// }
    /// ```
    public func gauge(name: String, help: String, labelNames: [String], series read: @escaping @Sendable () -> [CallbackSample]) {
        registerCallback(name: name, help: help, type: .gauge, labelNames: labelNames, read)
    }

    /// Registers a counter whose value `read` computes at each ``exposition()``: for totals kept
    /// elsewhere (a cache's hits). `read` must never decrease; otherwise as ``gauge(name:help:_:)``.
    public func counter(name: String, help: String, _ read: @escaping @Sendable () -> Double) {
        registerCallback(name: name, help: help, type: .counter, labelNames: []) { [CallbackSample(labelValues: [], value: read())] }
    }

    /// Registers a family of counters that `read` lists at each ``exposition()`` (as
    /// ``gauge(name:help:labelNames:series:)``); each series must never decrease.
    public func counter(name: String, help: String, labelNames: [String], series read: @escaping @Sendable () -> [CallbackSample]) {
        registerCallback(name: name, help: help, type: .counter, labelNames: labelNames, read)
    }

    /// How a callback series is exposed.
    enum CallbackType: String {
        case gauge
        case counter
    }

    private func registerCallback(name: String, help: String, type: CallbackType, labelNames: [String],
                                  _ read: @escaping @Sendable () -> [CallbackSample]) {
        let _: Void = register(name: name, labelNames: labelNames) { existing in
            guard existing == nil else { Self.clash(name) }
            return (.callback(help: help, type: type, labelNames: labelNames, read: read), ())
        }
    }

    /// The whole registry in the Prometheus text exposition format, version 0.0.4.
    ///
    /// Families in name order; within a family, series in order of their label values; each
    /// family as `# HELP`, `# TYPE`, then its samples. Families with no series yet are left out.
    /// Counters and gauges are read atomically one by one; a scrape that races with updates sees
    /// each series at some instant, not the registry at one instant (as in every Prometheus client).
    /// O(total series × buckets).
    public func exposition() -> String {
        let snapshot = families.withLock { $0.sorted { $0.key < $1.key } }
        var out = ""
        for (name, family) in snapshot {
            Exposition.append(name: name, family: family, to: &out)
        }
        return out
    }

    /// Validates names, then lets `decide` look at the current entry under the lock and return
    /// a family to insert (or nil to keep the current one) and the value to hand back.
    private func register<Result>(
        name: String,
        labelNames: [String],
        _ decide: (Family?) -> (insert: Family?, result: Result)
    ) -> Result {
        precondition(Exposition.isValidMetricName(name), "invalid metric name \"\(name)\"")
        for label in labelNames {
            precondition(Exposition.isValidLabelName(label), "metric \(name): invalid label name \"\(label)\"")
        }
        precondition(Set(labelNames).count == labelNames.count, "metric \(name): duplicate label names \(labelNames)")
        return families.withLock { table in
            let (insert, result) = decide(table[name])
            if let insert { table[name] = insert }
            return result
        }
    }

    private static func clash(_ name: String) -> Never {
        preconditionFailure("metric \(name) is already registered with another kind, labels or buckets")
    }
}
