import RPC
import Wire

/// The two calls a search field makes.
enum RequestKind: String, Sendable, CaseIterable, Hashable {
    /// `typeahead.v1.Typeahead/Suggest`: every keystroke.
    case suggest
    /// `typeahead.v1.Typeahead/Search`: submit.
    case search
}

/// How one request ended, as the report counts it.
///
/// ```swift
/// RequestOutcome(GRPCStatus(.cancelled, "superseded by revision 7 of session \"s1\""))  // .superseded
/// RequestOutcome(GRPCStatus(.unavailable, "no healthy replica"))                      // .failed
/// ```
enum RequestOutcome: Sendable, Equatable {
    /// An answer. `shards` is the answer's shard status when it carried one (a coordinator's).
    case answered(shards: Typeahead_V1_ShardStatus?)
    /// CANCELLED because a newer keystroke of the same session arrived: what a coordinator does to
    /// stale keystrokes on purpose, so it is not an error.
    case superseded
    /// Any other status, including the load generator's own timeout (DEADLINE_EXCEEDED).
    case failed(GRPCStatus)

    /// A failure status, classified: CANCELLED whose message says "superseded" is supersession.
    init(_ status: GRPCStatus) {
        if status.code == .cancelled && status.message.lowercased().contains("superseded") {
            self = .superseded
        } else {
            self = .failed(status)
        }
    }

    /// The gRPC status code the outcome stands for (superseded answers are CANCELLED).
    var code: GRPCStatus.Code {
        switch self {
        case .answered: .ok
        case .superseded: .cancelled
        case .failed(let status): status.code
        }
    }
}
