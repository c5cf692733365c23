/// A ``StripedCache``'s counts, summed over its stripes (for metrics).
public struct StripedCacheStatistics: Sendable, Equatable {
    /// Entries kept.
    public var entries = 0
    /// Their summed cost (bytes, for caches that count bytes).
    public var cost = 0
    public var hits: UInt64 = 0
    public var misses: UInt64 = 0
    /// Entries dropped because a key of a newer epoch came (see ``StripedCache``).
    public var retired: UInt64 = 0

    public init() {}
}
