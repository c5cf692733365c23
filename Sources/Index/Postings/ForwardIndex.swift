import Storage

/// The name words of every base document, as numbers: the postings turned around.
///
/// Why: the general plan reads its candidates (the documents with the complete words) in rank
/// order and verifies the partial word against each one's words. Most candidates of a common
/// complete word do not have the partial word ("grekrou cro" on the synthetic 1M catalog: 2,526
/// candidates, a few dozen matches), and reading one meant a B-tree descent to a record at a random
/// place in the map, decoding it, and an automaton or a scan over its words: about 0.3 µs each.
/// Here a candidate is a few loads from one contiguous run of the map, and its test is a
/// comparison of numbers.
///
/// **Ordinals.** Every base *name word* (a word of some title or alias: a `terms` key whose name
/// postings are not empty and that is not a token pseudo-term) gets its position among those words
/// in byte order, 0, 1, 2, …. Byte order makes the words under a prefix one range of ordinals
/// (``Generation/nameOrdinals(withPrefix:in:)``): a document has a word starting with the typed
/// prefix exactly when one of its ordinals is in that range. Every ``ordinalInterval``-th word is
/// kept in `name_ordinals` (key: the word; value: u32be ordinal); a range's ends are counted from
/// the sample before them along `terms` (at most an interval of name words). Keeping every word
/// cost 17 MB on cities (682,000 words, most of them from multilingual aliases); the samples cost a
/// sixteenth of that.
///
/// **Chunks.** The `forward` database holds one value per ``chunkSize`` documents (key: u32be
/// chunk number, document `d` in chunk `d / chunkSize`):
/// ```
/// u32le  n                  documents in the chunk (chunkSize, fewer in the last one)
/// u32le  offsets[n + 1]     where each document's list starts in `lists`; the last, its end
/// lists                     per document: its distinct name word ordinals, ascending,
///                           varint deltas (the first one absolute)
/// ```
/// A chunk is big (65,536 documents: a megabyte or two) so that a walk over sparse candidates in
/// rank order stays inside one value, which LMDB stores on contiguous overflow pages: one
/// `mdb_get` per chunk, then plain loads. Size: about 1.5 bytes a name word plus 4 a document.
///
/// Only base documents are listed; delta documents (numbered from the base count on) are read as
/// before. The base never changes after its build (replaced or deleted base documents stay, marked
/// in `deleted`), so neither do its lists. Generations written before the forward index have
/// neither database and are read without it.
enum ForwardIndex {
    static let chunkSize = 1 << 16

    /// Name words per sample in `name_ordinals`: a range's end costs at most this many steps of a
    /// `terms` cursor (and the description-only words between them).
    static let ordinalInterval: UInt32 = 16

    /// Encodes one chunk: `lists(i)` gives the ascending ordinals of the chunk's `i`-th document.
    static func encodeChunk(count: Int, into writer: inout ByteWriter, lists: (Int) -> ArraySlice<UInt32>) {
        writer.u32le(UInt32(count))
        let table = writer.bytes.count
        for _ in 0...count { writer.u32le(0) }
        let start = writer.bytes.count
        for index in 0..<count {
            writer.patchU32le(at: table + 4 * index, UInt32(writer.bytes.count - start))
            var previous: UInt32 = 0
            for (position, ordinal) in lists(index).enumerated() {
                writer.varint(position == 0 ? ordinal : ordinal - previous)
                previous = ordinal
            }
        }
        writer.patchU32le(at: table + 4 * count, UInt32(writer.bytes.count - start))
    }

    /// Reads documents' lists in any order, keeping the chunk last read (valid inside the read
    /// transaction that made it). Ascending reads, as the plans make, fetch each chunk once.
    struct Reader {
        private let database: Database
        private var chunkNumber: UInt32 = .max
        private var chunk: Bytes?
        private var count = 0

        init(database: Database) {
            self.database = database
        }

        /// Whether base document `docnum` has a name word whose ordinal is in `range` and not in
        /// `seen`; nil when the document is not listed (past the base) or its chunk is malformed.
        @inline(__always)
        mutating func hasOrdinal(in range: Range<UInt32>, notIn seen: [UInt32] = [], _ docnum: UInt32,
                                 _ txn: borrowing ReadTransaction) throws -> Bool? {
            var found = false
            guard try visit(docnum, txn, { ordinal in
                if ordinal >= range.upperBound { return false }
                if ordinal >= range.lowerBound, seen.isEmpty || !seen.contains(ordinal) { found = true; return false }
                return true
            }) else { return nil }
            return found
        }

        /// Whether base document `docnum` has an ordinal that `matches` and is not in `seen`; nil
        /// when the document is not listed or its list is malformed.
        @inline(__always)
        mutating func hasOrdinal(where matches: (UInt32) -> Bool, notIn seen: [UInt32], _ docnum: UInt32,
                                 _ txn: borrowing ReadTransaction) throws -> Bool? {
            var found = false
            guard try visit(docnum, txn, { ordinal in
                if matches(ordinal), !seen.contains(ordinal) { found = true; return false }
                return true
            }) else { return nil }
            return found
        }

        /// Whether base document `docnum` has an ordinal in one of `ranges` (ascending, disjoint);
        /// nil when the document is not listed or its list is malformed. Each ordinal (ascending)
        /// binary-searches the ranges from where the one before stopped: O(k log r) for k ordinals,
        /// where stepping through hundreds of ranges was most of "Flyc" on the synthetic 1M catalog.
        @inline(__always)
        mutating func hasOrdinal(inAny ranges: [Range<UInt32>], _ docnum: UInt32, _ txn: borrowing ReadTransaction) throws -> Bool? {
            var found = false
            var next = 0
            guard try visit(docnum, txn, { ordinal in
                // The first range from `next` that ends after the ordinal.
                var high = ranges.count
                while next < high {
                    let mid = (next + high) / 2
                    if ranges[mid].upperBound <= ordinal { next = mid + 1 } else { high = mid }
                }
                if next == ranges.count { return false }
                if ranges[next].lowerBound <= ordinal { found = true; return false }
                return true
            }) else { return nil }
            return found
        }

        /// Calls `body` with each ordinal of base document `docnum`, ascending; false when the
        /// document is not listed or its list is malformed.
        mutating func forEachOrdinal(_ docnum: UInt32, _ txn: borrowing ReadTransaction, _ body: (UInt32) -> Void) throws -> Bool {
            try visit(docnum, txn) { body($0); return true }
        }

        /// Decodes `docnum`'s list, handing each ordinal to `next` until it returns false: the one
        /// loop both readers share. False when the document is not listed or a varint is malformed.
        @inline(__always)
        private mutating func visit(_ docnum: UInt32, _ txn: borrowing ReadTransaction, _ next: (UInt32) -> Bool) throws -> Bool {
            guard let (chunk, start, end) = try list(docnum, txn) else { return false }
            return chunk.withUnsafeBytes { raw -> Bool in
                var offset = start
                var ordinal: UInt32 = 0
                var first = true
                while offset < end {
                    guard let (value, after) = Self.varint(raw, offset, end) else { return false }
                    offset = after
                    ordinal = first ? value : ordinal &+ value
                    first = false
                    if !next(ordinal) { return true }
                }
                return true
            }
        }

        /// The chunk holding `docnum` and where its list starts and ends in it.
        @inline(__always)
        private mutating func list(_ docnum: UInt32, _ txn: borrowing ReadTransaction) throws -> (Bytes, Int, Int)? {
            let number = docnum / UInt32(ForwardIndex.chunkSize)
            if number != chunkNumber {
                chunkNumber = number
                chunk = try txn.get(database, number)
                count = 0
                if let value = chunk, value.count >= 8 {
                    let n = Int(value.loadLittleEndian(at: 0))
                    if n <= ForwardIndex.chunkSize, 8 + 4 * n <= value.count { count = n }
                }
            }
            guard let chunk else { return nil }
            let index = Int(docnum % UInt32(ForwardIndex.chunkSize))
            guard index < count else { return nil }
            let lists = 8 + 4 * count
            let start = lists + Int(chunk.loadLittleEndian(at: 4 + 4 * index))
            let end = lists + Int(chunk.loadLittleEndian(at: 8 + 4 * index))
            guard start <= end, end <= chunk.count else { throw IndexError.corrupt("forward list of document \(docnum) out of range") }
            return (chunk, start, end)
        }

        /// A varint at `offset` (below `end`) and the offset after it; nil when malformed.
        @inline(__always)
        private static func varint(_ raw: UnsafeRawBufferPointer, _ offset: Int, _ end: Int) -> (UInt32, Int)? {
            var result: UInt32 = 0
            var shift: UInt32 = 0
            var offset = offset
            while offset < end, shift < 35 {
                let byte = raw[offset]
                offset += 1
                result |= UInt32(byte & 0x7F) << shift
                if byte < 0x80 { return (result, offset) }
                shift += 7
            }
            return nil
        }
    }
}

extension Bytes {
    /// A u32 stored little-endian at `offset` (trapping outside the view, as every load does).
    @inline(__always)
    func loadLittleEndian(at offset: Int) -> UInt32 {
        UInt32(littleEndian: loadNative(UInt32.self, at: offset))
    }
}
