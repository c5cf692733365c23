import Caching

/// Which data a read sees: a generation, its revision and the last transaction committed to it (see
/// ``Shard/readVersion(generation:)``).
public struct ReadVersion: Hashable, Sendable {
    public var generation: Int
    /// The generation's revision (its merges): each has an environment of its own, whose
    /// transaction numbers start again, so the pair alone would repeat.
    public var revision: Int
    public var transaction: Int

    public init(generation: Int, revision: Int = 0, transaction: Int) {
        self.generation = generation
        self.revision = revision
        self.transaction = transaction
    }
}

extension ReadVersion {
    /// The version as a cache's epoch (see ``CacheEpoch``): the generation's revision is the
    /// store, the transaction the snapshot in it. Both numbers stay far below 2³² in practice
    /// (each is one reindex or one merge); past it, two stores could share a major, which costs
    /// cache hits, never an answer.
    public var cacheEpoch: CacheEpoch {
        CacheEpoch(major: UInt64(truncatingIfNeeded: generation) << 32 | UInt64(UInt32(truncatingIfNeeded: revision)),
                   minor: UInt64(truncatingIfNeeded: transaction))
    }
}
