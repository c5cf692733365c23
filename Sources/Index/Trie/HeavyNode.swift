import Storage

/// A materialised node of the on-disk prefix trie: the best entries below one prefix.
///
/// The trie is *path-addressed*: a node is identified by its prefix (the UTF-8 bytes of an analysed
/// word prefix, cut at a scalar boundary), and LMDB's B+tree over those keys is the child index —
/// keys with a common prefix are adjacent, so a node's subtree is one contiguous key range, visited in
/// preorder by a cursor. Only *heavy* nodes (more than ``TrieParameters/heavyThreshold`` postings
/// below them) are stored in the `trie` database; a light prefix is answered by scanning its few
/// terms in the `terms` database.
///
/// Value layout:
/// ```
/// u8      flags            bit 0: startsWith list truncated; bit 1: all list truncated;
///                          bit 2: completions truncated
/// varint  postings         name postings below the prefix (an upper bound of its documents)
/// varint  n, n × varint    startsWith: the best documents whose first title word starts with the prefix
/// varint  n, n × varint    all: the best documents with any name word starting with the prefix
/// varint  n, n × (string suffix, varint best)
///                          completions: the terms below the prefix whose most popular document
///                          (lowest number) is best, ordered by (best, term); each term is stored
///                          as its suffix after the prefix
/// ```
/// Document numbers ascend (best first) and are delta-encoded. Both lists keep at most
/// ``TrieParameters/listSize`` documents. They compose exactly bottom-up: the best K below a node are
/// among the best K of its children and of its own term, because every child's set is a subset of
/// the node's.
struct HeavyNode {
    var startsWith: [UInt32]
    var startsWithTruncated: Bool
    var all: [UInt32]
    var allTruncated: Bool
    var postings: Int
    /// Full terms (prefix included) with the number of their best document, best first: set by the
    /// builder. A decoded node leaves them encoded (``forEachCompletion(first:_:)``): most readers want
    /// only the lists, and the plan that wants completions wants a few.
    var completions: [(term: [UInt8], best: UInt32)] = []
    var completionsTruncated = false
    /// How many completions the node lists.
    private(set) var completionCount = 0
    /// A decoded node's completions as stored, and its prefix (each term is stored as its suffix).
    private var encodedCompletions: Bytes?
    private var prefix: [UInt8] = []

    func encode(into writer: inout ByteWriter, prefixLength: Int) {
        writer.byte((startsWithTruncated ? 1 : 0) | (allTruncated ? 2 : 0) | (completionsTruncated ? 4 : 0))
        writer.varint(postings)
        for list in [startsWith, all] {
            writer.varint(list.count)
            writer.ascendingDeltas(list)
        }
        writer.varint(completions.count)
        for (term, best) in completions {
            writer.lengthPrefixed(term[prefixLength...])
            writer.varint(best)
        }
    }

    init(startsWith: [UInt32], startsWithTruncated: Bool, all: [UInt32], allTruncated: Bool, postings: Int) {
        self.postings = postings
        self.startsWith = startsWith
        self.startsWithTruncated = startsWithTruncated
        self.all = all
        self.allTruncated = allTruncated
    }

    init(decoding bytes: Bytes, prefix: [UInt8]) throws(IndexError) {
        var reader = ByteReader(bytes)
        let flags = try reader.byte()
        postings = try reader.int()
        startsWith = try reader.ascendingDeltas(count: try reader.int())
        all = try reader.ascendingDeltas(count: try reader.int())
        startsWithTruncated = flags & 1 != 0
        allTruncated = flags & 2 != 0
        completionsTruncated = flags & 4 != 0
        completionCount = try reader.int()
        encodedCompletions = bytes[range: reader.offset..<bytes.count]
        self.prefix = prefix
    }

    /// The `postings` field of an encoded node, without decoding its lists.
    static func postings(decoding bytes: Bytes) throws(IndexError) -> Int {
        var reader = ByteReader(bytes)
        _ = try reader.byte()
        return try reader.int()
    }

    /// Calls `body` with each of the first `limit` completions (the full term, lent for the
    /// call, and its best document), best first, until it returns false: no array per term.
    func forEachCompletion(first limit: Int, _ body: (_ term: UnsafeRawBufferPointer, _ best: UInt32) throws -> Bool) throws {
        guard let encoded = encodedCompletions else {
            for (term, best) in completions.prefix(limit) {
                guard try term.withUnsafeBytes({ try body($0, best) }) else { return }
            }
            return
        }
        var reader = ByteReader(encoded)
        // One buffer for every term, allocated once (a copy of `prefix` would be copied again
        // at the first edit, then grown at the first append).
        var term: [UInt8] = []
        term.reserveCapacity(prefix.count + 32)
        term.append(contentsOf: prefix)
        for _ in 0..<min(limit, completionCount) {
            let suffix = try reader.slice()
            term.removeSubrange(prefix.count...)
            suffix.withUnsafeBytes { term.append(contentsOf: $0) }
            let best = UInt32(truncatingIfNeeded: try reader.varint())
            guard try term.withUnsafeBytes({ try body($0, best) }) else { return }
        }
    }
}

/// How the trie is materialised; recorded in the generation's metadata.
struct TrieParameters: Sendable, Hashable {
    /// Documents kept per list in a heavy node.
    var listSize: Int = 32
    /// A prefix whose terms have more postings than this is stored as a heavy node.
    var heavyThreshold: Int = 32
    /// Completion terms kept per heavy node.
    var completions: Int { max(8, min(listSize, 16)) }
}
