import Synchronization

/// A Prometheus gauge family: a value that goes up and down, one series per set of label values.
///
/// For a value that is cheaper to read than to track (open connections, LMDB map size), register
/// a callback gauge instead: ``MetricsRegistry/gauge(name:help:_:)``.
///
/// ```swift
/// let inFlight = registry.gauge(name: "typeahead_requests_in_flight", help: "Requests being served.")
/// inFlight.increment()
/// defer { inFlight.decrement() }
/// ```
public final class Gauge: Sendable {
    /// One time series of a gauge: a `Double` kept as its bit pattern in an atomic `UInt64`.
    public final class Series: Sendable {
        private let bits = Atomic<UInt64>(0.0.bitPattern)

        init() {}

        /// Sets the value. One atomic store.
        public func set(_ value: Double) {
            bits.store(value.bitPattern, ordering: .relaxed)
        }

        /// Adds `amount` (which may be negative). Lock-free: a compare-exchange loop that retries
        /// only when another thread changed the value in between.
        public func increment(by amount: Double = 1) {
            var old = bits.load(ordering: .relaxed)
            while true {
                let new = (Double(bitPattern: old) + amount).bitPattern
                let (exchanged, current) = bits.weakCompareExchange(
                    expected: old, desired: new, ordering: .relaxed)
                if exchanged { return }
                old = current
            }
        }

        /// Subtracts `amount`.
        public func decrement(by amount: Double = 1) {
            increment(by: -amount)
        }

        /// The current value.
        public var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
    }

    /// The metric name, e.g. `typeahead_requests_in_flight`.
    public let name: String
    /// The `# HELP` text.
    public let help: String
    /// The label names, in the order the exposition writes them.
    public var labelNames: [String] { table.labelNames }

    let table: SeriesTable<Series>

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        self.table = SeriesTable(metricName: name, labelNames: labelNames) { Series() }
    }

    /// The series for `labels`, which must name every label of the family and nothing else.
    /// Created on first use; O(labels) plus a hash lookup under this family's mutex.
    public func labels(_ labels: [String: String]) -> Series {
        table.series(for: labels)
    }

    /// Sets an unlabelled gauge (traps if the family has labels).
    public func set(_ value: Double) { table.onlySeries().set(value) }

    /// Adds to an unlabelled gauge (traps if the family has labels).
    public func increment(by amount: Double = 1) { table.onlySeries().increment(by: amount) }

    /// Subtracts from an unlabelled gauge (traps if the family has labels).
    public func decrement(by amount: Double = 1) { table.onlySeries().decrement(by: amount) }

    /// The value of an unlabelled gauge (traps if the family has labels).
    public var value: Double { table.onlySeries().value }
}
