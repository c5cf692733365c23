/// A received message's bytes, in memory this object owns: the views read from it
/// (``EncodedEntryHit``, ``RankKeyView``, ``ShardSuggestResponseView``…) point into it with
/// unsafe pointers and stay valid exactly as long as it lives.
///
/// Why not the `[UInt8]` the message arrived in: a view that held the array would retain and
/// release it on every copy (a coordinator copies its shards' hits and keys hundreds of times a
/// call, and that reference counting was a fifth of its CPU), and a pointer taken from an array
/// is valid only inside `withUnsafeBytes`. This buffer is allocated once, filled once, never
/// mutated and freed in `deinit`, so a plain pointer into it is sound while the buffer is alive.
///
/// Lifetime rule for the views: keep the view that holds the buffer alive while its parts are
/// used — `withExtendedLifetime(view) { … }` where the last use of the view itself comes before
/// the last use of its parts (Swift may release an object after its last use, not at the end of
/// its scope).
///
/// Immutable after `init`, hence `Sendable`.
public final class MessageBuffer: @unchecked Sendable {
    public let bytes: UnsafeRawBufferPointer
    private let allocation: UnsafeMutableRawBufferPointer

    /// Copies `source` (one allocation, at least one byte, so that the base address exists even
    /// for an empty message).
    public init(copying source: ArraySlice<UInt8>) {
        let allocation = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, source.count), alignment: 8)
        source.withUnsafeBytes { allocation.copyMemory(from: $0) }
        self.allocation = allocation
        bytes = UnsafeRawBufferPointer(start: allocation.baseAddress, count: source.count)
    }

    deinit {
        allocation.deallocate()
    }
}
