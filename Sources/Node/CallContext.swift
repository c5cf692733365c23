import Wire
import HTTP2

/// What a method handler knows about its call.
struct CallContext: Sendable {
    let requestID: String
    let deadline: ContinuousClock.Instant?
    let responder: HTTP2Responder

    /// Throws DEADLINE_EXCEEDED or CANCELLED when the call should stop.
    func checkAlive() throws(GRPCStatus) {
        if responder.isCancelled { throw GRPCStatus(.cancelled, "the client cancelled the call") }
        if let deadline, ContinuousClock.now >= deadline { throw GRPCStatus(.deadlineExceeded, "deadline exceeded") }
    }

    /// A cheap test the index calls between candidates, so abandoned work stops early.
    var shouldStop: @Sendable () -> Bool {
        let responder = self.responder
        let deadline = self.deadline
        return { responder.isCancelled || (deadline.map { ContinuousClock.now >= $0 } ?? false) }
    }
}
