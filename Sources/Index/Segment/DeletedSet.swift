import Storage

/// The deleted base documents, for removing them from candidate lists without one lookup each
/// when there are few of them.
struct DeletedSet {
    let generation: Generation
    let count: Int

    init(generation: Generation, in txn: borrowing ReadTransaction) throws {
        self.generation = generation
        count = try txn.count(generation.schema.deleted)
    }

    /// Whether one document is deleted.
    func contains(_ doc: UInt32, in txn: borrowing ReadTransaction) throws -> Bool {
        guard count > 0 else { return false }
        return try generation.isDeleted(doc, in: txn)
    }

    /// Removes deleted documents from a sorted list.
    func remove(from docs: inout [UInt32], in txn: borrowing ReadTransaction) throws {
        guard count > 0, !docs.isEmpty else { return }
        if count <= docs.count * 4 {
            var deleted: [UInt32] = []
            deleted.reserveCapacity(count)
            try txn.withCursor(generation.schema.deleted) { cursor in
                var entry = try cursor.first()
                while let key = entry?.key {
                    deleted.append(key.loadBigEndian(UInt32.self, at: 0))
                    entry = try cursor.next()
                }
            }
            docs = subtract(docs, deleted)
        } else {
            var kept: [UInt32] = []
            kept.reserveCapacity(docs.count)
            for doc in docs where !(try generation.isDeleted(doc, in: txn)) { kept.append(doc) }
            docs = kept
        }
    }
}
