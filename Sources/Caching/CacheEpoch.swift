/// Which snapshot of the data a cached value was computed from, for a cache whose keys name it
/// (see ``StripedCache``): a key of a newer snapshot makes every older one's entries unreachable.
///
/// Two parts, because the data changes in two ways:
/// - ``minor`` grows with every write to one store (an LMDB transaction id): of two epochs with
///   one major, the larger minor is the newer, and the older one's entries are not kept again;
/// - ``major`` names the store itself (a node's generation and its revision). A different major
///   is a switch to another store, and the newest whatever its number: a rollback goes back to an
///   older generation. Its entries replace the kept ones either way.
///
/// ```swift
/// let epoch = CacheEpoch(major: UInt64(generation) << 32 | UInt64(revision), minor: UInt64(transaction))
/// ```
public struct CacheEpoch: Hashable, Sendable {
    public var major: UInt64
    public var minor: UInt64

    public init(major: UInt64 = 0, minor: UInt64) {
        self.major = major
        self.minor = minor
    }

    /// Whether entries of `self` may be kept where entries of `kept` are: not when `self` is an
    /// older snapshot of the same store.
    func supersedes(_ kept: CacheEpoch) -> Bool {
        major != kept.major || minor > kept.minor
    }
}
