import Foundation
import Index
import RPC

/// How a node serves its shard.
public struct NodeConfiguration: Sendable {
    /// Where it listens, its limits and tokens (default port 7701).
    public var server: RPCServer.Configuration = {
        var server = RPCServer.Configuration()
        server.port = 7701
        return server
    }()
    /// Searches (and other slower reads) running at once; more wait, first in first out.
    public var searchConcurrency = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
    /// Searches admitted at once (running or waiting); more are refused with RESOURCE_EXHAUSTED
    /// rather than queued without bound. The wait absorbs a busy moment (both replicas of a
    /// shard begin a merge on the same write batch) that refusals turned into partial answers;
    /// each search still stops at its caller's deadline.
    public var searchQueueLimit = max(16, ProcessInfo.processInfo.activeProcessorCount * 16)
    /// Bytes of encoded Suggest answers kept for the next caller asking the same (see
    /// `SuggestAnswers`: exact, keyed by the data version read); 0 turns the cache off.
    public var answerCacheBytes = 64 << 20
    /// When the delta that upserts and deletes build up is folded into a new base, in the
    /// background (see `MergeScheduler`); `.never` leaves it to the next reindex.
    public var mergePolicy = MergePolicy()
    /// Each collection raises the merge thresholds by a share drawn once from `0..<mergeSpread`
    /// (``MergePolicy/spread(by:)``), so that replicas taking the same writes do not all merge at
    /// the same moment; 0 keeps the policy exact.
    public var mergeSpread = 0.5
    /// Queued writes beyond this are refused with RESOURCE_EXHAUSTED.
    public var writeQueueLimit = 64
    /// How long the previous generation stays open after the last read that named it (a
    /// switch's pinned calls): then it is let go, with its caches (see
    /// `Shard.releasePreviousGeneration(idleFor:)`), and opened again if named later.
    public var previousGenerationIdle: Duration = .seconds(60)
    /// Fault injection for benchmarks and chaos tests, off by default: this share (0…1) of shard
    /// calls (ShardSuggest, ShardSearch) is answered `stall` late, as if the node had paused (a
    /// disk hiccup, a noisy neighbour). The work is done at once; only the answer waits, off the
    /// event loop, so other calls are not held up.
    public var faultStallShare: Double = 0
    public var faultStall: Duration = .zero

    public init() {}
}
