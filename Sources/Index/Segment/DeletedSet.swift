import Storage

/// The deleted base documents as one query sees them: a bit test each when the snapshot's bitmap
/// is built (``Generation/deletedBitmap``), else a look-up in the `deleted` database.
///
/// Why: a trie-plan keystroke asks about each of the twenty-odd documents it reads, and a
/// look-up is a B+tree descent of its own: with 1% of Debian re-weighted, "lib" cost 11.3 µs
/// instead of 9.1 µs, nearly all of it in those look-ups.
struct DeletedSet {
    let generation: Generation
    let count: Int
    /// The snapshot's deleted documents, when built (a large set is built in the background).
    private let bitmap: DocumentBitmap?

    /// Deleted documents up to which a query builds the bitmap itself: a cursor's walk of them,
    /// about a millisecond at this size, once per write.
    static let inlineBuildLimit = 16_384

    init(generation: Generation, in txn: borrowing ReadTransaction) throws {
        self.generation = generation
        let count = try txn.count(generation.schema.deleted)
        self.count = count
        guard count > 0 else {
            bitmap = nil
            return
        }
        let schema = generation.schema, base = Int(generation.baseCount)
        bitmap = try generation.deletedBitmap.value(size: count, environment: generation.environment, in: txn) { txn in
            try Self.bitmap(schema, base: base, in: txn)
        }
    }

    /// Every deleted base document of the snapshot `txn` reads, as bits below `base`.
    private static func bitmap(_ schema: Schema, base: Int, in txn: borrowing ReadTransaction) throws -> DocumentBitmap {
        var bitmap = DocumentBitmap(spanning: base)
        // Only base documents count as deleted (``Generation/isDeleted(_:in:)``).
        try forEachDeleted(schema, in: txn) { doc in if Int(doc) < base { bitmap.insert(doc) } }
        return bitmap
    }

    /// Calls `body` with every key of `deleted`, ascending.
    private static func forEachDeleted(_ schema: Schema, in txn: borrowing ReadTransaction, _ body: (UInt32) -> Void) throws {
        try txn.withCursor(schema.deleted) { cursor in
            var entry = try cursor.first()
            while let key = entry?.key {
                guard key.count == 4 else { throw IndexError.corrupt("a deleted document's key has \(key.count) bytes, not 4") }
                body(key.loadBigEndian(UInt32.self, at: 0))
                entry = try cursor.next()
            }
        }
    }

    /// Whether one document is deleted.
    func contains(_ doc: UInt32, in txn: borrowing ReadTransaction) throws -> Bool {
        guard count > 0 else { return false }
        if let bitmap { return bitmap.contains(doc) }
        return try generation.isDeleted(doc, in: txn)
    }

    /// Removes deleted documents from a sorted list.
    func remove(from docs: inout [UInt32], in txn: borrowing ReadTransaction) throws {
        guard count > 0, !docs.isEmpty else { return }
        if let bitmap {
            docs.removeAll { bitmap.contains($0) }
        } else if count <= docs.count * 4 {
            var deleted: [UInt32] = []
            deleted.reserveCapacity(count)
            try Self.forEachDeleted(generation.schema, in: txn) { deleted.append($0) }
            docs = subtract(docs, deleted)
        } else {
            var kept: [UInt32] = []
            kept.reserveCapacity(docs.count)
            for doc in docs where !(try generation.isDeleted(doc, in: txn)) { kept.append(doc) }
            docs = kept
        }
    }
}
