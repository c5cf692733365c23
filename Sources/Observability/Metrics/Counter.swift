import Synchronization

/// A Prometheus counter family: a count that only goes up, one series per set of label values.
///
/// ```swift
/// let requests = registry.counter(name: "typeahead_requests_total", help: "Requests handled.",
///                                 labelNames: ["method", "status"])
/// let ok = requests.labels(["method": "Suggest", "status": "OK"])  // keep this on the hot path
/// ok.increment()
/// ```
public final class Counter: Sendable {
    /// One time series of a counter: a single atomic `UInt64`.
    public final class Series: Sendable {
        private let count = Atomic<UInt64>(0)

        init() {}

        /// Adds `amount`. One relaxed atomic add: lock-free, O(1). Wraps at 2⁶⁴.
        public func increment(by amount: UInt64 = 1) {
            _ = count.wrappingAdd(amount, ordering: .relaxed)
        }

        /// The current count.
        public var value: UInt64 { count.load(ordering: .relaxed) }
    }

    /// The metric name, e.g. `typeahead_requests_total`.
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
    ///
    /// The first call for a set of values creates the series; later calls return the same object.
    /// O(labels) plus a hash lookup under this family's mutex — keep the result where it is hot.
    public func labels(_ labels: [String: String]) -> Series {
        table.series(for: labels)
    }

    /// Adds `amount` to the only series of an unlabelled counter (traps if the family has labels).
    public func increment(by amount: UInt64 = 1) {
        table.onlySeries().increment(by: amount)
    }

    /// The count of an unlabelled counter (traps if the family has labels).
    public var value: UInt64 { table.onlySeries().value }
}
