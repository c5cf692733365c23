import Synchronization

/// The label-values → series map shared by every metric family.
///
/// Each family has its own table and its own mutex, so `labels(_:)` on one family never waits for
/// another family or for the registry. An unlabelled family creates its one series up front and
/// keeps it in `unlabelled`, so its hot path does no lookup at all.
final class SeriesTable<Series: AnyObject & Sendable>: Sendable {
    let metricName: String
    let labelNames: [String]
    let unlabelled: Series?
    private let make: @Sendable () -> Series
    private let children: Mutex<[[String]: Series]>

    init(metricName: String, labelNames: [String], make: @escaping @Sendable () -> Series) {
        self.metricName = metricName
        self.labelNames = labelNames
        self.make = make
        if labelNames.isEmpty {
            let only = make()
            self.unlabelled = only
            self.children = Mutex([[]: only])
        } else {
            self.unlabelled = nil
            self.children = Mutex([:])
        }
    }

    /// The series for `labels`, created on first use. O(l) to order the values, plus one hash
    /// lookup under this family's mutex.
    func series(for labels: [String: String]) -> Series {
        precondition(
            labels.count == labelNames.count && labelNames.allSatisfy { labels[$0] != nil },
            "metric \(metricName) has labels \(labelNames), got \(labels.keys.sorted())"
        )
        let values = labelNames.map { labels[$0]! }
        return children.withLock { table in
            if let existing = table[values] { return existing }
            let created = make()
            table[values] = created
            return created
        }
    }

    /// The series the hot path of an unlabelled family uses; traps if the family has labels.
    func onlySeries() -> Series {
        guard let unlabelled else {
            preconditionFailure("metric \(metricName) has labels \(labelNames): call labels(_:) first")
        }
        return unlabelled
    }

    /// Every series with its label values (in `labelNames` order), sorted by those values.
    func snapshot() -> [(labelValues: [String], series: Series)] {
        let pairs = children.withLock { table in table.map { (labelValues: $0.key, series: $0.value) } }
        return pairs.sorted { $0.labelValues.lexicographicallyPrecedes($1.labelValues) }
    }
}
