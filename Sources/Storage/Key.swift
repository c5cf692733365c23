/// A value that can be written to, or looked up in, LMDB as a key or a value: anything that can lend
/// out its bytes for the duration of a call.
///
/// LMDB copies keys and values during `put`, and only reads them during lookups, so a borrowed
/// buffer is all it needs; conformances avoid copies wherever the type already stores contiguous bytes.
///
/// ## Encodings (decided here, relied upon by every on-disk format)
/// - `[UInt8]`, `ArraySlice<UInt8>`, ``Bytes``: the bytes themselves.
/// - `String`, `Substring`: their UTF-8 bytes, no terminator. Byte order of UTF-8 is code-point order.
/// - `UInt32`, `UInt64`: **big-endian**, 4 and 8 bytes, so that LMDB's byte-wise key order equals
///   numeric order (`2 < 10` as keys, unlike little-endian or decimal text). Read them back with
///   ``Bytes/loadBigEndian(_:at:)``.
/// - ``IntegerKey``: 4 bytes, **native-endian**, for ``DatabaseFlags/integerKey`` databases, where
///   LMDB compares keys as numbers. Read them back with ``Bytes/loadNative(_:at:)``.
/// - ``EmptyValue``: zero bytes, for sets stored as keys only (LMDB rejects empty *keys*).
///
/// ## Implementation requirements
/// `withStorageBytes` must call `body` exactly once, synchronously, with a buffer that stays valid and
/// unchanged for the duration of the call, and must return `body`'s result. The buffer must not be
/// retained after `body` returns. `UnsafeRawBufferPointer` appears in the public API only here: it is
/// the cheapest way to lend bytes without choosing an owner type for everyone.
public protocol StorageKey {
    func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: StorageKey where Element == UInt8 {
    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(body)
    }
}

extension ArraySlice: StorageKey where Element == UInt8 {
    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(body)
    }
}

extension String: StorageKey {
    /// The string's UTF-8 bytes. Native Swift strings are stored as contiguous UTF-8, so this is
    /// zero-copy; a bridged or otherwise non-contiguous string is copied once.
    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return try Array(utf8).withUnsafeBytes(body)
    }
}

extension Substring: StorageKey {
    /// The substring's UTF-8 bytes; zero-copy when the base string is native (see `String`).
    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return try Array(utf8).withUnsafeBytes(body)
    }
}

extension UInt32: StorageKey {
    /// 4 bytes, big-endian: byte order equals numeric order.
    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: bigEndian, body)
    }
}

extension UInt64: StorageKey {
    /// 8 bytes, big-endian: byte order equals numeric order.
    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: bigEndian, body)
    }
}

extension Bytes: StorageKey {
    /// The viewed bytes themselves (no copy). Write operations copy `Bytes` arguments first, because a
    /// view read in the same write transaction may point into a page the write rewrites.
    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}

extension UnsafeRawBufferPointer: StorageKey {
    /// The bytes themselves: a key or a value lent by its owner for the call. Also what lets a
    /// view compare with lent bytes by `memcmp` (``Bytes/elementsEqual(_:)``) rather than byte by
    /// byte as a generic sequence.
    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(self)
    }
}

/// A zero-length value, for databases used as sets (the information is all in the key) or for
/// ``DatabaseFlags/duplicateSort`` databases where the duplicates carry the data. `[UInt8]()` works too.
public struct EmptyValue: StorageKey, Sendable, Hashable {
    @inlinable public init() {}

    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: nil, count: 0))
    }
}

/// A key of a ``DatabaseFlags/integerKey`` database: a `UInt32` in native byte order, which is what
/// LMDB's integer comparison reads. Cursor order over such keys is numeric order.
///
/// ```swift
/// try txn.put(docs, IntegerKey(7), record)
/// let number = key.loadNative(UInt32.self, at: 0)   // 7
/// ```
public struct IntegerKey: StorageKey, Sendable, Hashable {
    public var value: UInt32
    @inlinable public init(_ value: UInt32) { self.value = value }

    @inlinable
    public func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: value, body)
    }
}
