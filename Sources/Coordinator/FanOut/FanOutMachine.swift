import Wire

/// The decisions of one client call's fan-out across shards, as a pure state machine (see
/// ``ShardCallMachine`` for each shard's): it collects one result per shard, completes when every
/// shard has one, and at the deadline or on a cancel stops the shards still out. ``FanOut``
/// performs the actions.
struct FanOutMachine {
    enum Action: Equatable {
        /// Stop shard `shard`'s call (its attempts are reset).
        case stopShard(Int, CoordinatorTelemetry.CancelReason)
        /// Shard `shard` missed the deadline (counted per shard).
        case missedDeadline(Int)
        case disarmDeadlineTimer
        /// Every shard has its result (an answer or why there is none).
        case answered([Result<ArraySlice<UInt8>, GRPCStatus>])
        case cancelled(CoordinatorTelemetry.CancelReason)

        static func == (a: Action, b: Action) -> Bool {
            switch (a, b) {
            case let (.stopShard(x1, y1), .stopShard(x2, y2)): x1 == x2 && y1 == y2
            case let (.missedDeadline(x), .missedDeadline(y)): x == y
            case (.disarmDeadlineTimer, .disarmDeadlineTimer): true
            case let (.cancelled(x), .cancelled(y)): x == y
            case let (.answered(x), .answered(y)):
                x.count == y.count && zip(x, y).allSatisfy { pair in
                    switch pair {
                    case let (.success(p), .success(q)): p == q
                    case let (.failure(p), .failure(q)): p == q
                    default: false
                    }
                }
            default: false
            }
        }
    }

    let shardNames: [String]
    private var results: [Result<ArraySlice<UInt8>, GRPCStatus>?]
    private var remaining: Int
    private(set) var isCompleted = false

    init(shardNames: [String]) {
        self.shardNames = shardNames
        results = Array(repeating: nil, count: shardNames.count)
        remaining = shardNames.count
    }

    /// A shard's call finished (once per shard; later ones are ignored).
    mutating func shardFinished(_ shard: Int, _ result: Result<ArraySlice<UInt8>, GRPCStatus>) -> [Action] {
        guard !isCompleted, results[shard] == nil else { return [] }
        results[shard] = result
        remaining -= 1
        return remaining == 0 ? complete() : []
    }

    /// The deadline passed: the shards still out are stopped and fail with DEADLINE_EXCEEDED; the
    /// fan-out completes with what has arrived.
    mutating func deadlinePassed() -> [Action] {
        guard !isCompleted else { return [] }
        var actions: [Action] = []
        for shard in results.indices where results[shard] == nil {
            actions.append(.stopShard(shard, .deadline))
            actions.append(.missedDeadline(shard))
            results[shard] = .failure(GRPCStatus(.deadlineExceeded, "\(shardNames[shard]) did not answer within the deadline"))
        }
        remaining = 0
        isCompleted = true
        actions.append(.answered(results.map { $0! }))
        return actions
    }

    /// The client went away or a newer keystroke superseded the call: every shard is stopped.
    mutating func cancel(_ reason: CoordinatorTelemetry.CancelReason) -> [Action] {
        guard !isCompleted else { return [] }
        isCompleted = true
        return [.disarmDeadlineTimer] + results.indices.map { .stopShard($0, reason) } + [.cancelled(reason)]
    }

    private mutating func complete() -> [Action] {
        isCompleted = true
        return [.disarmDeadlineTimer, .answered(results.map { $0! })]
    }
}
