import Foundation

/// One log event, as a ``Logger`` hands it to a ``LogSink``.
///
/// `metadata` is already merged (logger metadata, then per-call metadata over it).
public struct LogRecord: Sendable, Equatable {
    /// When the event was logged (wall clock, UTC when rendered).
    public var timestamp: Date
    /// The event's severity.
    public var level: Logger.Level
    /// The label of the logger that logged it.
    public var label: String
    /// The human-readable message.
    public var message: String
    /// Key-value context: request id, path, status, duration….
    public var metadata: [String: String]

    /// Creates a record; sinks and tests use it, loggers create records themselves.
    public init(
        timestamp: Date,
        level: Logger.Level,
        label: String,
        message: String,
        metadata: [String: String] = [:]
    ) {
        self.timestamp = timestamp
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
    }
}
