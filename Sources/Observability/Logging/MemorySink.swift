import Synchronization

/// Keeps records in memory, for tests.
///
/// ```swift
/// let sink = MemorySink()
/// let logger = Logger(label: "test", sink: sink)
/// logger.info("hello")
/// XCTAssertEqual(sink.records.map(\.message), ["hello"])
/// ```
public final class MemorySink: LogSink {
    private let storage = Mutex<[LogRecord]>([])

    /// Creates an empty sink.
    public init() {}

    public func write(_ record: LogRecord) {
        storage.withLock { $0.append(record) }
    }

    /// The records written so far, oldest first. O(n) copy.
    public var records: [LogRecord] {
        storage.withLock { $0 }
    }

    /// The records written so far rendered as lines in `format`, oldest first.
    public func lines(in format: LogFormat) -> [String] {
        records.map { format.line(for: $0) }
    }

    /// Forgets every record.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }
}
