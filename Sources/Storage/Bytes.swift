internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A zero-copy, non-owning view of bytes that live in LMDB's memory map: one `MDB_val`.
///
/// Keys and values read through ``ReadableTransaction/get(_:_:)`` or a ``Cursor`` point straight into
/// the read-only map, so reading them costs nothing and decoding them is as fast as walking an array.
///
/// ## Lifetime
/// A `Bytes` is valid **only until the transaction that produced it ends** (LMDB's rule, see
/// `mdb_get` in lmdb.h). In a write transaction it is additionally invalidated by any later
/// `put`/`delete`/`clear` in that transaction, because LMDB may rewrite the page in place.
/// Reading a stale `Bytes` reads freed or reused pages: garbage or a crash. To keep the bytes, copy
/// them: `Array(bytes)`, `bytes.string`, or decode them into your own types inside the transaction.
///
/// The type is deliberately **not** `Sendable`: sending it to another task would almost always
/// outlive its transaction.
///
/// ## Indexing
/// `Index == Int`, `startIndex == 0`, `endIndex == count`; every subscript is bounds-checked (one
/// unsigned comparison) and the hot accessors are `@inlinable`, so a varint decoder written against
/// `bytes[i]` compiles to a plain load plus a compare. The collection `SubSequence` is the standard
/// `Slice<Bytes>` (which keeps the parent's indices, as `Collection` requires); use
/// ``subscript(range:)`` for a zero-based sub-view that is itself a `Bytes`.
public struct Bytes: RandomAccessCollection {
    public typealias Index = Int
    public typealias Element = UInt8
    public typealias Indices = Range<Int>
    public typealias SubSequence = Slice<Bytes>

    /// First byte, or `nil` only when `count == 0` (LMDB may hand out a null pointer for empty data).
    @usableFromInline let base: UnsafeRawPointer?

    /// Number of bytes in the view. O(1).
    public let count: Int

    @inlinable
    init(base: UnsafeRawPointer?, count: Int) {
        self.base = count == 0 ? nil : base
        self.count = count
    }

    /// Wraps an `MDB_val` filled in by LMDB.
    init(_ value: MDB_val) {
        self.init(base: UnsafeRawPointer(value.mv_data), count: value.mv_size)
    }

    /// Runs `body` with a `Bytes` view of `source`'s bytes, valid only inside `body`.
    ///
    /// This is how code outside the `Storage` module unit-tests decoders that take `Bytes` without
    /// opening an environment: `Bytes.withView(of: [0x81, 0x01]) { try decodeVarint($0) }`.
    @inlinable
    public static func withView<R>(of source: some StorageKey, _ body: (Bytes) throws -> R) rethrows -> R {
        try source.withStorageBytes { raw in
            try body(Bytes(base: raw.baseAddress, count: raw.count))
        }
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }
    @inlinable public var isEmpty: Bool { count == 0 }

    /// The byte at `position`. Traps if `position` is not in `0..<count`. O(1).
    @inlinable
    public subscript(position: Int) -> UInt8 {
        // One unsigned compare covers both `position < 0` and `position >= count`.
        precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "Bytes index out of range")
        return base.unsafelyUnwrapped.load(fromByteOffset: position, as: UInt8.self)
    }

    /// A zero-based view of the bytes in `range`, sharing this view's memory and lifetime.
    /// Traps unless `0 <= range.lowerBound && range.upperBound <= count`. O(1), no copy.
    @inlinable
    public subscript(range range: Range<Int>) -> Bytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "Bytes range out of bounds")
        return Bytes(base: base.map { $0 + range.lowerBound }, count: range.count)
    }

    /// Reads a `T` stored big-endian (most significant byte first) at byte `offset`, without any
    /// alignment requirement. Traps unless the `T.bitWidth / 8` bytes at `offset` are inside the view.
    ///
    /// Big-endian is the module's integer encoding for keys because it makes byte order equal numeric
    /// order (see ``StorageKey``).
    @inlinable
    public func loadBigEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        let size = T.bitWidth / 8
        precondition(offset >= 0 && size <= count &- offset, "Bytes.loadBigEndian out of range")
        let start = base.unsafelyUnwrapped + offset
        // Byte-at-a-time is alignment-agnostic, works for every FixedWidthInteger, and after
        // specialization LLVM folds it into one load plus a byte swap.
        var value: T = 0
        for index in 0..<size {
            value = (value << 8) | T(truncatingIfNeeded: start.load(fromByteOffset: index, as: UInt8.self))
        }
        return value
    }

    /// Reads a `T` stored in native byte order at byte `offset` (an ``IntegerKey``), without any
    /// alignment requirement. Traps unless the bytes are inside the view.
    @inlinable
    public func loadNative<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        precondition(offset >= 0 && T.bitWidth / 8 <= count &- offset, "Bytes.loadNative out of range")
        return (base.unsafelyUnwrapped + offset).loadUnaligned(as: T.self)
    }

    /// Calls `body` with the raw bytes. For hot decoders in other modules.
    ///
    /// The buffer is valid only inside `body` *and* only while the producing transaction is alive;
    /// the pointer must not escape `body`. The memory is LMDB's read-only map: writing through it
    /// crashes the process (SIGSEGV).
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    @inlinable
    public func withContiguousStorageIfAvailable<R>(
        _ body: (UnsafeBufferPointer<UInt8>) throws -> R
    ) rethrows -> R? {
        // The map is untyped memory; binding it to UInt8 is a no-op at run time and makes the typed
        // access well-defined. This is what lets `Array(bytes)` copy with a single memcpy.
        let typed = base?.bindMemory(to: UInt8.self, capacity: count)
        return try body(UnsafeBufferPointer(start: typed, count: count))
    }

    /// The bytes decoded as UTF-8 into a new (owned) `String`; invalid sequences become U+FFFD. O(n).
    public var string: String {
        String(decoding: UnsafeRawBufferPointer(start: base, count: count), as: UTF8.self)
    }

    /// Whether the view starts with `prefix`'s bytes. An empty prefix matches everything. O(prefix).
    @inlinable
    public func hasPrefix(_ prefix: some StorageKey) -> Bool {
        prefix.withStorageBytes { other in
            guard other.count <= count else { return false }
            guard other.count > 0 else { return true }
            return memcmp(base.unsafelyUnwrapped, other.baseAddress.unsafelyUnwrapped, other.count) == 0
        }
    }

    /// Lexicographic byte comparison with `other` (LMDB's default key order, i.e. `memcmp` with the
    /// shorter sequence first on a tie): `-1`, `0` or `1`. O(min(count, other.count)).
    @inlinable
    public func compare(_ other: some StorageKey) -> Int {
        other.withStorageBytes { rhs in
            let common = Swift.min(count, rhs.count)
            if common > 0 {
                let order = memcmp(base.unsafelyUnwrapped, rhs.baseAddress.unsafelyUnwrapped, common)
                if order != 0 { return order < 0 ? -1 : 1 }
            }
            return count == rhs.count ? 0 : (count < rhs.count ? -1 : 1)
        }
    }

    /// Whether the view holds exactly `other`'s bytes. O(n), `memcmp`.
    @inlinable
    public func elementsEqual(_ other: some StorageKey) -> Bool {
        other.withStorageBytes { rhs in
            guard rhs.count == count else { return false }
            guard count > 0 else { return true }
            return memcmp(base.unsafelyUnwrapped, rhs.baseAddress.unsafelyUnwrapped, count) == 0
        }
    }
}

extension Bytes: Equatable {
    /// Content equality (not identity): two views are equal when they hold the same bytes.
    @inlinable
    public static func == (lhs: Bytes, rhs: Bytes) -> Bool {
        lhs.elementsEqual(rhs)
    }
}

extension Bytes: CustomStringConvertible, CustomDebugStringConvertible {
    /// Up to 32 bytes in hex, e.g. `Bytes(3: 61 62 63)`, for logs and test failures.
    public var description: String {
        var text = "Bytes(\(count):"
        for byte in prefix(32) {
            text += byte < 16 ? " 0" : " "
            text += String(byte, radix: 16)
        }
        return text + (count > 32 ? " …)" : ")")
    }

    public var debugDescription: String { description }
}

/// `Bytes` points into a transaction's snapshot; moving it to another task almost always outlives that
/// transaction. Copy it (`Array(bytes)`) to send the data.
@available(*, unavailable, message: "Bytes is valid only inside its transaction; send Array(bytes) instead")
extension Bytes: Sendable {}
