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
