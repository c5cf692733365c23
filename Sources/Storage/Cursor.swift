internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A position in one ``Database`` within one transaction, for ordered scans (`MDB_cursor`).
///
/// ## Lifetime
/// You never create or store a cursor: ``ReadableTransaction/withCursor(_:_:)`` opens one, lends it to
/// its closure as `inout`, and closes it (`mdb_cursor_close`, in `deinit`) when the closure returns,
/// which is always before the transaction ends — LMDB requires that for write transactions. Being
/// `~Copyable`, a cursor cannot be copied, returned or captured by an escaping closure, so no handle
/// can outlive that scope.
///
/// Every key/value pair it returns is a ``Bytes`` view into the map: valid until the **transaction**
/// ends (not just until the cursor moves), and in a write transaction only until the next write.
///
/// ## Positioning
/// Every method returns `nil` when there is no such entry (end of data, key not found). Keys are in
/// byte order (`memcmp`, shorter first); in a ``DatabaseFlags/duplicateSort`` database the values of
/// one key are visited in byte order too. On a cursor that is not positioned yet, `next…` behave like
/// ``first()`` and `previous…` like ``last()`` (LMDB semantics). A failed ``seek(_:)`` leaves the
/// position unspecified; reposition before moving relative to it.
///
/// Each call is one `mdb_cursor_get`: O(1) amortized for steps, O(log n) for seeks.
public struct Cursor: ~Copyable {
    /// One key/value pair, both views into the map.
    public typealias Entry = (key: Bytes, value: Bytes)

    let handle: OpaquePointer

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        mdb_cursor_close(handle)
    }

    /// The first entry of the database (`MDB_FIRST`).
    public mutating func first() throws -> Entry? { try move(MDB_FIRST) }

    /// The last entry of the database; in a duplicate-sorted database, the last value of the last key
    /// (`MDB_LAST`).
    public mutating func last() throws -> Entry? { try move(MDB_LAST) }

    /// The next entry, including further values of the current key (`MDB_NEXT`).
    public mutating func next() throws -> Entry? { try move(MDB_NEXT) }

    /// The previous entry, including earlier values of the current key (`MDB_PREV`).
    public mutating func previous() throws -> Entry? { try move(MDB_PREV) }

    /// The first value of the next key, skipping the current key's remaining duplicates
    /// (`MDB_NEXT_NODUP`). Same as ``next()`` in a database without duplicates.
    public mutating func nextKey() throws -> Entry? { try move(MDB_NEXT_NODUP) }

    /// The last value of the previous key (`MDB_PREV_NODUP`).
    public mutating func previousKey() throws -> Entry? { try move(MDB_PREV_NODUP) }

    /// The next value of the current key, or `nil` after its last value (`MDB_NEXT_DUP`).
    public mutating func nextDuplicate() throws -> Entry? { try move(MDB_NEXT_DUP) }

    /// The previous value of the current key, or `nil` before its first value (`MDB_PREV_DUP`).
    public mutating func previousDuplicate() throws -> Entry? { try move(MDB_PREV_DUP) }

    /// The first value of the current key (`MDB_FIRST_DUP`, then `MDB_GET_CURRENT` for the key).
    public mutating func firstDuplicate() throws -> Entry? {
        guard try moveValueOnly(MDB_FIRST_DUP) else { return nil }
        return try current()
    }

    /// The last value of the current key (`MDB_LAST_DUP`, then `MDB_GET_CURRENT` for the key).
    public mutating func lastDuplicate() throws -> Entry? {
        guard try moveValueOnly(MDB_LAST_DUP) else { return nil }
        return try current()
    }

    /// The entry under the cursor, or `nil` if the cursor is not positioned (`MDB_GET_CURRENT`).
    public mutating func current() throws -> Entry? {
        var key = MDB_val()
        var data = MDB_val()
        let rc = mdb_cursor_get(handle, &key, &data, MDB_GET_CURRENT)
        // An unpositioned cursor answers EINVAL here; "no current entry" is what that means.
        if rc == MDB_NOTFOUND || rc == EINVAL { return nil }
        try check(rc, "mdb_cursor_get")
        return (Bytes(key), Bytes(data))
    }

    /// The entry whose key equals `key` exactly — its first value in a duplicate-sorted database —
    /// or `nil` (`MDB_SET_KEY`). O(log n) from the root; but on a positioned cursor LMDB first
    /// compares `key` with the current leaf page's first and last keys, and a key within them is
    /// found on that page without the descent. So many look-ups in or near key order cost less
    /// through one cursor than through ``ReadableTransaction/get(_:_:)`` each (a miss too keeps
    /// the cursor usable for the next seek).
    public mutating func seek(_ key: some StorageKey) throws -> Entry? {
        try key.withStorageBytes { keyBytes in
            guard keyBytes.count > 0 else { return nil }   // LMDB stores no empty keys
            return try move(MDB_SET_KEY, key: keyBytes)
        }
    }

    /// The first entry whose key is `>= key` in byte order (`MDB_SET_RANGE`), or `nil` past the end.
    /// The usual start of a prefix scan: `seek(atLeast: prefix)`, then ``next()`` while
    /// `entry.key.hasPrefix(prefix)`. An empty `key` is below every key, so it gives ``first()``.
    /// O(log n).
    public mutating func seek(atLeast key: some StorageKey) throws -> Entry? {
        try key.withStorageBytes { keyBytes in
            guard keyBytes.count > 0 else { return try first() }
            return try move(MDB_SET_RANGE, key: keyBytes)
        }
    }

    /// The exact pair `key`/`value` in a duplicate-sorted database (`MDB_GET_BOTH`). In a database
    /// without duplicates it matches when the key's value equals `value`. O(log n).
    public mutating func seek(_ key: some StorageKey, value: some StorageKey) throws -> Entry? {
        try seekPair(key, value, MDB_GET_BOTH)
    }

    /// The first value `>= value` of exactly `key` in a duplicate-sorted database
    /// (`MDB_GET_BOTH_RANGE`), or `nil` if the key is absent or all its values are smaller. O(log n).
    public mutating func seek(_ key: some StorageKey, atLeastValue value: some StorageKey) throws -> Entry? {
        try seekPair(key, value, MDB_GET_BOTH_RANGE)
    }

    /// Number of values stored under the current key (`mdb_cursor_count`): 1 in a database without
    /// duplicates. Throws `EINVAL` if the cursor is not positioned.
    public mutating func duplicateCount() throws -> Int {
        var count = 0
        let rc = mdb_cursor_count(handle, &count)
        if rc == MDB_INCOMPATIBLE {
            // Not a DUPSORT database: every key has exactly one value, if the cursor is on one.
            guard try current() != nil else {
                throw StorageError(code: EINVAL, operation: "mdb_cursor_count: cursor is not positioned")
            }
            return 1
        }
        try check(rc, "mdb_cursor_count")
        return count
    }

    // MARK: - One mdb_cursor_get per move

    /// Runs an operation whose result LMDB reports in both key and data.
    private mutating func move(_ op: MDB_cursor_op, key input: UnsafeRawBufferPointer? = nil) throws -> Entry? {
        var key = input.map(MDB_val.init) ?? MDB_val()
        var data = MDB_val()
        let rc = mdb_cursor_get(handle, &key, &data, op)
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "mdb_cursor_get")
        // For MDB_SET_KEY and MDB_SET_RANGE LMDB overwrites `key` with the stored key, so both views
        // point into the map, never at the caller's temporary buffer.
        return (Bytes(key), Bytes(data))
    }

    /// Runs an operation that only updates data (the `*_DUP` positioning ops), returning whether an
    /// entry was found; the caller reads the entry with `MDB_GET_CURRENT`.
    private mutating func moveValueOnly(_ op: MDB_cursor_op) throws -> Bool {
        var key = MDB_val()
        var data = MDB_val()
        let rc = mdb_cursor_get(handle, &key, &data, op)
        if rc == MDB_NOTFOUND { return false }
        // Without DUPSORT the current value is the key's only value, so it is its first and last.
        // (LMDB checks "positioned" before "DUPSORT", so this cursor is positioned.)
        if rc == MDB_INCOMPATIBLE { return true }
        try check(rc, "mdb_cursor_get")
        return true
    }

    private mutating func seekPair(_ key: some StorageKey, _ value: some StorageKey, _ op: MDB_cursor_op) throws -> Entry? {
        let found = try key.withStorageBytes { keyBytes in
            guard keyBytes.count > 0 else { return false }
            return try value.withStorageBytes { valueBytes in
                var keyValue = MDB_val(keyBytes)
                var data = MDB_val(valueBytes)
                let rc = mdb_cursor_get(handle, &keyValue, &data, op)
                if rc == MDB_NOTFOUND { return false }
                try check(rc, "mdb_cursor_get")
                return true
            }
        }
        // GET_BOTH* leave `key` pointing at our temporary buffer; re-read both from the map.
        return found ? try current() : nil
    }
}
