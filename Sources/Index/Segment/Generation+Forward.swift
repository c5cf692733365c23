import Storage

// Reading the forward index (``ForwardIndex``): base documents' name words as ordinals.

extension Generation {
    /// A reader of the base documents' name word ordinals, or nil when the generation was written
    /// before the forward index.
    func forwardReader() -> ForwardIndex.Reader? {
        schema.forward.map { ForwardIndex.Reader(database: $0) }
    }

    /// The ordinal of base name word `word`, or nil when it is none (or there is no forward index).
    func nameOrdinal(of word: Bytes, in txn: borrowing ReadTransaction) throws -> UInt32? {
        guard let database = schema.nameOrdinals, let value = try txn.get(database, word) else { return nil }
        guard value.count == 4 else { throw IndexError.corrupt("a name word's ordinal is \(value.count) bytes") }
        return value.loadBigEndian(UInt32.self, at: 0)
    }

    /// The ordinals of the base name words that start with `prefix`: a base document has such a
    /// word exactly when one of its ordinals is in the range (empty when no base word does). Nil
    /// when the generation has no forward index. Two cursor seeks: the first name word at or after
    /// `prefix`, and the first after every word with it (no UTF-8 byte is 0xFF, so `prefix` + 0xFF
    /// sorts after all of them and before the next).
    func nameOrdinals(withPrefix prefix: [UInt8], in txn: borrowing ReadTransaction) throws -> Range<UInt32>? {
        guard let database = schema.nameOrdinals, schema.forward != nil else { return nil }
        return try txn.withCursor(database) { cursor in
            func ordinal(_ entry: Cursor.Entry?) throws -> UInt32? {
                guard let value = entry?.value else { return nil }
                guard value.count == 4 else { throw IndexError.corrupt("a name word's ordinal is \(value.count) bytes") }
                return value.loadBigEndian(UInt32.self, at: 0)
            }
            guard let first = try cursor.seek(atLeast: prefix), first.key.hasPrefix(prefix), let lower = try ordinal(first) else {
                return 0..<0
            }
            // The ordinal after the last word with the prefix: the next word's, or the count of words.
            if let upper = try ordinal(try cursor.seek(atLeast: prefix + [0xFF])) {
                guard upper > lower else { throw IndexError.corrupt("name word ordinals out of order") }
                return lower..<upper
            }
            guard let last = try cursor.last(), let end = try ordinal(last), end >= lower else {
                throw IndexError.corrupt("name word ordinals out of order")
            }
            return lower..<(end + 1)
        }
    }
}
