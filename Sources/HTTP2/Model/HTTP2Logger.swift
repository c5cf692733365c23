/// The logging hook of this module: a level threshold and a sink chosen by the caller (this module
/// never prints). Messages are built lazily, only when the level passes the threshold.
public struct HTTP2Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case trace, debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let level: Level
    private let sink: (@Sendable (Level, String) -> Void)?

    /// Logs messages at `level` and above to `sink`, which may be called from any event-loop thread.
    public init(level: Level = .info, sink: @escaping @Sendable (Level, String) -> Void) {
        self.level = level
        self.sink = sink
    }

    private init() {
        self.level = .error
        self.sink = nil
    }

    /// Drops everything.
    public static let disabled = HTTP2Logger()

    @inline(__always)
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard let sink, level >= self.level else { return }
        sink(level, message())
    }

    public func trace(_ message: @autoclosure () -> String) { log(.trace, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
