import Foundation

/// A structured logger: a label, a minimum level and metadata, over an injected ``LogSink``.
///
/// A `Logger` is a small value: copy it, add metadata to the copy, pass it down. Metadata is a
/// `[String: String]`, so copies share storage until one of them is changed (copy-on-write).
/// Per-call metadata is merged over the logger's own; on a key clash the call wins.
///
/// Cost: a call below ``minimumLevel`` is one comparison — the message and metadata are
/// autoclosures and are never evaluated. An enabled call is O(m log m) in the number of metadata
/// entries (they are rendered in key order) plus one ``LogSink/write(_:)``.
///
/// ```swift
/// var logger = Logger(label: "node", sink: StandardErrorSink(format: .logfmt))
/// logger[metadataKey: "shard"] = "3"
/// logger.info("request done", ["request_id": id.description, "status": "OK"])
/// // ts=2026-11-29T13:00:00.123Z level=info logger=node msg="request done" request_id=… shard=3 status=OK
/// ```
public struct Logger: Sendable {
    /// The severity of an event, from least to most severe.
    public enum Level: UInt8, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error, critical

        /// The lower-case name written in the `level` field: `"info"`, `"warning"`, ….
        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Names the component that logs (the `logger` field), e.g. `"node"` or `"coordinator"`.
    public let label: String
    /// Events below this level are dropped before their message is built.
    public var minimumLevel: Level
    /// Key-value pairs attached to every event from this logger (and its copies).
    public var metadata: [String: String]
    /// Where records go.
    public let sink: any LogSink

    /// Creates a logger.
    ///
    /// - Parameters:
    ///   - label: the `logger` field of every line.
    ///   - sink: the backend that receives records; the caller chooses it, libraries never do.
    ///   - minimumLevel: events below it are dropped; `.info` unless given.
    ///   - metadata: attached to every event.
    public init(
        label: String,
        sink: any LogSink,
        minimumLevel: Level = .info,
        metadata: [String: String] = [:]
    ) {
        self.label = label
        self.sink = sink
        self.minimumLevel = minimumLevel
        self.metadata = metadata
    }

    /// Reads or sets one metadata entry of this logger; setting `nil` removes it.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Whether an event at `level` would be written. O(1).
    ///
    /// Use it to guard work that autoclosures cannot defer, such as computing several values.
    @inlinable
    public func isEnabled(_ level: Level) -> Bool { level >= minimumLevel }

    /// Logs `message` at `level` with `metadata` merged over the logger's own.
    ///
    /// Neither `message` nor `metadata` is evaluated when `level` is below ``minimumLevel``.
    @inlinable
    public func log(
        _ level: Level,
        _ message: @autoclosure () -> String,
        _ metadata: @autoclosure () -> [String: String] = [:]
    ) {
        guard isEnabled(level) else { return }
        emit(level, message(), metadata())
    }

    /// Kept out of line so the inlined fast path above is only the level check.
    @usableFromInline
    internal func emit(_ level: Level, _ message: String, _ callMetadata: [String: String]) {
        var merged = self.metadata
        if !callMetadata.isEmpty {
            if merged.isEmpty {
                merged = callMetadata
            } else {
                merged.merge(callMetadata) { _, call in call }
            }
        }
        sink.write(LogRecord(timestamp: Date(), level: level, label: label, message: message, metadata: merged))
    }

    /// Logs at ``Level/trace``: step-by-step detail, normally off.
    @inlinable
    public func trace(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.trace, message(), metadata())
    }

    /// Logs at ``Level/debug``: detail useful while diagnosing.
    @inlinable
    public func debug(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.debug, message(), metadata())
    }

    /// Logs at ``Level/info``: normal operation worth a line (a request done, a generation opened).
    @inlinable
    public func info(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.info, message(), metadata())
    }

    /// Logs at ``Level/notice``: normal but significant (a shard joined, a reindex started).
    @inlinable
    public func notice(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.notice, message(), metadata())
    }

    /// Logs at ``Level/warning``: something degraded but the request or task went on.
    @inlinable
    public func warning(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.warning, message(), metadata())
    }

    /// Logs at ``Level/error``: a request or task failed.
    @inlinable
    public func error(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.error, message(), metadata())
    }

    /// Logs at ``Level/critical``: the process cannot go on as it should.
    @inlinable
    public func critical(_ message: @autoclosure () -> String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        log(.critical, message(), metadata())
    }
}
