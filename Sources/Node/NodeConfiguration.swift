import Foundation

/// How a node serves its shard.
public struct NodeConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 7701
    /// Event-loop threads (default: one per core).
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Bearer token that admin and write methods require. Without one they are refused.
    public var adminToken: String?
    /// Bearer token that read methods require, if set (otherwise reads are open).
    public var readToken: String?
    /// Largest request message (gRPC message or JSON body).
    public var maximumMessageBytes = 4 << 20
    public var maximumConcurrentStreams: UInt32 = 128
    public var maximumConnections = 10_000
    public var maximumHeaderListBytes: UInt32 = 16 << 10
    public var idleTimeout: Duration = .seconds(120)
    /// How long in-flight requests may run after a shutdown begins.
    public var shutdownGrace: Duration = .seconds(10)
    /// Searches (and other slower reads) running at once; more are refused with RESOURCE_EXHAUSTED
    /// rather than queued without bound.
    public var searchConcurrency = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
    /// Queued writes beyond this are refused with RESOURCE_EXHAUSTED.
    public var writeQueueLimit = 64

    public init() {}
}
