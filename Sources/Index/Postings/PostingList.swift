import Storage

/// The postings of one term in the base segment: which documents contain it.
///
/// Value of the `terms` database (key: the analysed term's UTF-8 bytes):
/// ```
/// varint  nameCount          documents with the term in the title or an alias
/// varint  descriptionCount   documents with the term only in the description
/// nameCount × varint         document numbers, ascending, delta-encoded (first one absolute)
/// descriptionCount × varint  likewise
/// ```
/// Base document numbers are assigned in static rank order (weight descending, sortTitle, id), so
/// ascending document numbers are best-first: a prefix of a posting list is its top entries.
/// Size: about 1–3 bytes per posting.
enum PostingList {
    static func encode(name: [UInt32], description: [UInt32], into writer: inout ByteWriter) {
        writer.varint(name.count)
        writer.varint(description.count)
        writer.ascendingDeltas(name)
        writer.ascendingDeltas(description)
    }
}

/// Decodes a ``PostingList`` value without copying it.
struct PostingListView {
    let nameCount: Int
    let descriptionCount: Int
    private let bytes: Bytes
    private let start: Int

    init(_ bytes: Bytes) throws(IndexError) {
        var reader = ByteReader(bytes)
        nameCount = try reader.int()
        descriptionCount = try reader.int()
        self.bytes = bytes
        start = reader.offset
    }

    /// Calls `body` with every document of the name list, then (if `includeDescription`) of the
    /// description list, each list in ascending order.
    func forEach(includeDescription: Bool, _ body: (UInt32, _ inDescription: Bool) throws -> Void) throws {
        var reader = ByteReader(bytes, offset: start)
        var doc: UInt32 = 0
        for i in 0..<nameCount {
            let delta = try reader.varint()
            doc = i == 0 ? UInt32(truncatingIfNeeded: delta) : doc &+ UInt32(truncatingIfNeeded: delta)
            try body(doc, false)
        }
        guard includeDescription else { return }
        for i in 0..<descriptionCount {
            let delta = try reader.varint()
            doc = i == 0 ? UInt32(truncatingIfNeeded: delta) : doc &+ UInt32(truncatingIfNeeded: delta)
            try body(doc, true)
        }
    }
}

extension PostingListView {
    /// Appends the name list (ascending) to `docs`: one tight pass over the bytes, for the big
    /// lists of common words (a closure call and a bounds-checked reader per posting cost more
    /// than the decoding itself).
    func appendNameDocuments(to docs: inout [UInt32]) throws(IndexError) {
        guard nameCount > 0 else { return }
        docs.reserveCapacity(docs.count + nameCount)
        let count = nameCount
        let ok: Bool = bytes.withUnsafeBytes { raw in
            var offset = start
            var doc: UInt32 = 0
            for i in 0..<count {
                var value: UInt32 = 0
                var shift: UInt32 = 0
                while true {
                    guard offset < raw.count, shift < 35 else { return false }
                    let byte = raw[offset]
                    offset += 1
                    value |= UInt32(truncatingIfNeeded: byte & 0x7F) << shift
                    if byte < 0x80 { break }
                    shift += 7
                }
                doc = i == 0 ? value : doc &+ value
                docs.append(doc)
            }
            return true
        }
        guard ok else { throw .corrupt("bad varint in a posting list") }
    }
}

/// Walks the name postings of one base term lazily, without decoding the rest of the list.
/// Valid inside the read transaction its bytes came from.
struct PostingCursor {
    private var reader: ByteReader
    private var remaining: Int
    /// The current document, or nil when the list is exhausted.
    private(set) var current: UInt32?

    init(_ bytes: Bytes) throws(IndexError) {
        var reader = ByteReader(bytes)
        remaining = try reader.int()
        _ = try reader.int()
        self.reader = reader
        current = nil
        try advance()
    }

    /// Postings after the current one.
    var left: Int { remaining }

    mutating func advance() throws(IndexError) {
        guard remaining > 0 else { current = nil; return }
        remaining -= 1
        let delta = UInt32(truncatingIfNeeded: try reader.varint())
        current = current.map { $0 &+ delta } ?? delta
    }
}

/// A min-heap of posting cursors by current document: the lazy union of many lists.
struct PostingHeap {
    private var cursors: [PostingCursor] = []

    mutating func push(_ cursor: PostingCursor) {
        guard cursor.current != nil else { return }
        cursors.append(cursor)
        var child = cursors.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard cursors[child].current! < cursors[parent].current! else { break }
            cursors.swapAt(child, parent)
            child = parent
        }
    }

    /// The smallest current document over all lists, without advancing.
    var smallest: UInt32? { cursors.first?.current }

    /// The smallest current document over all lists (repeats possible), advancing its list.
    mutating func popSmallest() throws(IndexError) -> UInt32? {
        guard let smallest = cursors.first?.current else { return nil }
        try cursors[0].advance()
        if cursors[0].current == nil {
            cursors.swapAt(0, cursors.count - 1)
            cursors.removeLast()
        }
        siftDown(0)
        return smallest
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < cursors.count, cursors[left].current! < cursors[smallest].current! { smallest = left }
            if right < cursors.count, cursors[right].current! < cursors[smallest].current! { smallest = right }
            if smallest == parent { return }
            cursors.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
