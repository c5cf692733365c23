/// The backend that receives a ``Logger``'s records.
///
/// Implementation requirements:
/// - `write(_:)` may be called from any thread at the same time; it must be safe to do so, and the
///   output of two concurrent calls must not interleave.
/// - `write(_:)` must not call back into a `Logger` that writes to the same sink.
/// - `write(_:)` should not block for long: it runs on the caller's thread, often a request's.
public protocol LogSink: Sendable {
    /// Consumes one record. Called only for records at or above the logger's minimum level.
    func write(_ record: LogRecord)
}
