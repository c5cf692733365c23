/// Which data a read sees: a generation and the last transaction committed to it (see
/// ``Shard/readVersion(generation:)``).
public struct ReadVersion: Hashable, Sendable {
    public var generation: Int
    public var transaction: Int

    public init(generation: Int, transaction: Int) {
        self.generation = generation
        self.transaction = transaction
    }
}
