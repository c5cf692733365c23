import Catalog

/// How much a generation has changed since its base was built: what a merge would fold in.
public struct DeltaSize: Sendable, Hashable {
    /// Documents in the base segment (deleted ones included).
    public var base: Int
    /// Delta documents: entries upserted since the build (the live version of each).
    public var documents: Int
    /// Base documents deleted or replaced since the build.
    public var deletedBase: Int

    public init(base: Int, documents: Int, deletedBase: Int) {
        self.base = base
        self.documents = documents
        self.deletedBase = deletedBase
    }

    /// What slows queries down: documents read outside the rank-ordered base, plus holes in it.
    public var total: Int { documents + deletedBase }
}

/// When a node folds a generation's delta into its base (see ``Shard/beginMerge()``).
///
/// A query's extra cost grows with the delta (each matching delta document is read and ranked;
/// each deleted base document is a hole in the heavy trie lists), a merge costs a build of the
/// shard. Merging once the delta passes a share of the base bounds the first and amortises the
/// second: at 1%, a shard rebuilds about 100 entries per entry written, and a keystroke reads at
/// most about 1% of the shard beyond what a fresh build would read (and far less for any prefix
/// longer than a letter or two).
///
/// ```swift
/// let policy = MergePolicy(deltaFraction: 0.01, minimumDelta: 100)
/// if try shard.mergeDue(policy) { try shard.merge() }
/// ```
public struct MergePolicy: Sendable, Hashable {
    /// Merge once the delta (``DeltaSize/total``) is at least this share of the base...
    public var deltaFraction: Double
    /// ...and at least this many documents (small shards would otherwise merge on every write).
    public var minimumDelta: Int

    public init(deltaFraction: Double = 0.01, minimumDelta: Int = 100) {
        self.deltaFraction = deltaFraction
        self.minimumDelta = minimumDelta
    }

    /// Never merges.
    public static let never = MergePolicy(deltaFraction: .infinity, minimumDelta: .max)

    /// This policy with both thresholds raised by `share` (0.2: 20% more delta before a merge).
    ///
    /// Why a node spreads its own: every replica of a shard takes the same writes, so with one
    /// threshold they all begin their merges on the same batch, and the shard loses the CPU of
    /// all its replicas at once (a soak saw searches refused on both replicas at that moment).
    /// A share drawn per node lets their merges drift apart; answers never depend on when a
    /// merge happens.
    public func spread(by share: Double) -> MergePolicy {
        guard deltaFraction.isFinite, share > 0 else { return self }
        return MergePolicy(deltaFraction: deltaFraction * (1 + share),
                           minimumDelta: minimumDelta == .max ? .max : Int((Double(minimumDelta) * (1 + share)).rounded(.up)))
    }

    public func isDue(_ delta: DeltaSize) -> Bool {
        guard delta.total > 0, delta.total >= minimumDelta, deltaFraction.isFinite else { return false }
        return Double(delta.total) >= deltaFraction * Double(max(1, delta.base))
    }
}

/// A merge begun (``Shard/beginMerge()``): its snapshot of the live entries, to build from.
public struct PendingMerge: Sendable {
    public let generation: Int
    /// The revision it builds.
    public let revision: Int
    /// The serving revision it rebuilds from (read, as the build streams, in one read transaction).
    let source: Generation
    /// The delta it folds in.
    public let delta: DeltaSize
    let parameters: TrieParameters
    /// The generation's filterable attributes: the new revision declares them too.
    let filterable: [String]
}

/// A finished merge.
public struct MergeInfo: Sendable {
    public var generation: Int
    public var revision: Int
    /// Live entries of the new revision.
    public var entries: Int
    /// The delta folded in.
    public var delta: DeltaSize
    /// Writes made during the build and replayed onto the new revision (batches).
    public var replayed: Int
    public var build: BuildStatistics
}
