import Storage

/// The term dictionary of the base segment as a packed radix trie: one LMDB value, walked in place.
///
/// ```
///            (root)
///           /      \\
///        "app"     "cafe"•
///        /   \\
///     "le"•  "ly"•          • = a term ends here
/// ```
/// Every node is a byte record; chains of single children are merged into one edge whose label is
/// one or more whole UTF-8 scalars (a radix tree). The whole trie is a single LMDB value, so it is
/// one contiguous run of pages in the memory map: a walk follows offsets with plain loads — no
/// B+tree descent per node — which is what makes typo expansion (a Levenshtein automaton walked
/// over the trie) cheap. Nothing is rebuilt in RAM when a shard opens.
///
/// Node layout (children are serialised before their parent; offsets are absolute):
/// ```
/// u8      flags         bit 0: a term ends at this node; bit 1: the node has a child index;
///                       bit 2: the node's best document follows
/// [varint best]         the first document with a name word at or below the node (a term's
///                       first name posting, the smallest over the subtree)
/// varint  n             children, in ascending label order
/// [index] n × u8        each child's first label byte
///         n × u32le     each child's entry, as an offset from the end of the index
/// n × (string label, varint offset)
/// ```
/// The last four bytes of the value are the root's offset (u32be). Size: about 3–6 bytes per edge,
/// 5 more per child of an indexed node, and 1–5 per node for its best document.
///
/// **Best documents.** Base document numbers are static rank order, so a node's best document
/// bounds every entry below it: no name posting of its terms comes before it. A typo'd partial
/// word's walk gives its regions their nodes' bests (``TermRegion/best``), and the plans read
/// regions best first, leaving unread those whose best comes after what the answer already holds
/// (``RegionMerge``, the completions' `bestWords`). Deletions only move a term's first live
/// posting later, so a best stays a bound through updates. Tries written before bests (layout 2)
/// have no node with bit 2 set: their regions' bests are 0, which prunes nothing.
///
/// **The child index.** Nodes with ``indexedChildren`` children or more (the upper levels: a
/// multilingual catalog's root has thousands) list their children's first bytes apart, with the
/// entries' offsets. A typo-tolerant walk deep enough that only a query scalar can keep its row
/// alive (``BandAutomaton/needsMatch``) tests the first bytes against the few that can and reads
/// only those entries, instead of decoding every entry to skip it (on the cities catalog, two
/// thirds of the entries a walk within two edits met: walks 5–10% faster). Tries written before
/// the index have no node with bit 1 set and are read as they are.
enum PackedTrie {
    static let key: [UInt8] = [0x00]

    /// Children from which a node gets a child index.
    static let indexedChildren = 8

    /// Packs terms given in strictly ascending byte order, with child indexes on nodes of
    /// `indexedFrom` children or more (nil: none, as tries were written before them; tests also
    /// index small nodes, which the walks must read alike), and with each node's best document
    /// when `bests` gives each term's first name posting (`UInt32.max` for a term without one).
    static func build(_ terms: [[UInt8]], bests: [UInt32]? = nil, indexedFrom: Int? = indexedChildren) -> [UInt8] {
        precondition(bests.map { $0.count == terms.count } ?? true, "one best a term")
        var writer = ByteWriter(capacity: terms.count * 8 + 16)
        let root = node(terms, bests, 0..<terms.count, depth: 0, indexedFrom: indexedFrom, into: &writer)
        writer.u32be(UInt32(root.offset))
        return writer.bytes
    }

    /// Writes the node for `terms[range]`, which share their first `depth` bytes; returns its
    /// offset and best document (`UInt32.max` without `bests`).
    private static func node(_ terms: [[UInt8]], _ bests: [UInt32]?, _ range: Range<Int>, depth: Int, indexedFrom: Int?,
                             into writer: inout ByteWriter) -> (offset: Int, best: UInt32) {
        var lower = range.lowerBound
        let isTerm = lower < range.upperBound && terms[lower].count == depth
        var best = isTerm ? bests?[lower] ?? .max : .max
        if isTerm { lower += 1 }
        var children: [(label: ArraySlice<UInt8>, offset: Int)] = []
        while lower < range.upperBound {
            // The group of terms whose next scalar is the same.
            let first = terms[lower]
            let scalarLength = UTF8Scalars.sequenceLength(first[depth])
            let lead = first[depth..<min(first.count, depth + scalarLength)]
            var upper = lower + 1
            while upper < range.upperBound, terms[upper].count >= depth + lead.count,
                  terms[upper][depth..<(depth + lead.count)].elementsEqual(lead) {
                upper += 1
            }
            // The group's longest common prefix, cut to a scalar boundary.
            let last = terms[upper - 1]
            var common = depth
            let limit = min(first.count, last.count)
            while common < limit, first[common] == last[common] { common += 1 }
            while common < first.count, common > depth, first[common] & 0xC0 == 0x80 { common -= 1 }
            if common <= depth { common = depth + lead.count }
            let child = node(terms, bests, lower..<upper, depth: common, indexedFrom: indexedFrom, into: &writer)
            children.append((first[depth..<common], child.offset))
            best = min(best, child.best)
            lower = upper
        }
        let offset = writer.bytes.count
        let hasIndex = indexedFrom.map { children.count >= $0 } ?? false
        writer.byte((isTerm ? 1 : 0) | (hasIndex ? 2 : 0) | (bests != nil ? 4 : 0))
        if bests != nil { writer.varint(Int(best)) }
        writer.varint(children.count)
        if hasIndex {
            var entries = ByteWriter(capacity: children.count * 8)
            var starts: [Int] = []
            starts.reserveCapacity(children.count)
            for child in children {
                starts.append(entries.bytes.count)
                entries.lengthPrefixed(child.label)
                entries.varint(child.offset)
            }
            for child in children { writer.byte(child.label[child.label.startIndex]) }
            for start in starts { writer.u32le(UInt32(start)) }
            writer.raw(entries.bytes)
        } else {
            for child in children {
                writer.lengthPrefixed(child.label)
                writer.varint(child.offset)
            }
        }
        return (offset, best)
    }

    /// Reads the head of the node at `offset`: its flags, its best document if it ends a term (0
    /// otherwise, and for a trie that records none: a bound that prunes nothing) and its child
    /// count, leaving `cursor` where its child index or entries start.
    ///
    /// A walk records the best of the nodes that end a term it matches (a subtree's comes from
    /// ``best(_:at:)``), so the best of any other node is skipped, not decoded: decoding it at
    /// every node a walk passes was a tenth of a two-edit walk.
    @inline(__always)
    static func header(_ raw: UnsafeRawBufferPointer, at offset: Int, _ cursor: inout Int) throws
        -> (flags: UInt8, best: UInt32, children: Int) {
        guard offset >= 0, offset < raw.count - 4 else { throw IndexError.corrupt("term trie offset out of range") }
        let flags = raw[offset]
        cursor = offset + 1
        var best: UInt32 = 0
        if flags & 4 != 0 {
            if flags & 1 != 0 {
                best = try readBest(raw, &cursor)
            } else {
                try skipVarint(raw, &cursor)
            }
        }
        return (flags, best, try readVarint(raw, &cursor))
    }

    /// The best document of the node at `offset` (see the type's notes; 0 when not recorded).
    @inline(__always)
    static func best(_ raw: UnsafeRawBufferPointer, at offset: Int) throws -> UInt32 {
        guard offset >= 0, offset < raw.count - 4 else { throw IndexError.corrupt("term trie offset out of range") }
        var cursor = offset + 1
        return raw[offset] & 4 != 0 ? try readBest(raw, &cursor) : 0
    }

    @inline(__always)
    private static func readBest(_ raw: UnsafeRawBufferPointer, _ cursor: inout Int) throws -> UInt32 {
        let value = try readVarint(raw, &cursor)
        guard value <= Int(UInt32.max) else { throw IndexError.corrupt("term trie best document out of range") }
        return UInt32(value)
    }

    /// Moves `cursor` past a varint, bounds-checked as ``readVarint(_:_:)`` is.
    @inline(__always)
    private static func skipVarint(_ raw: UnsafeRawBufferPointer, _ cursor: inout Int) throws {
        let start = cursor
        while cursor < raw.count, raw[cursor] >= 0x80 { cursor += 1 }
        guard cursor < raw.count, cursor - start < 9 else { throw IndexError.corrupt("bad varint in term trie") }
        cursor += 1
    }

    /// The child index of the node whose flags are `flags` and whose child count ends at `cursor`:
    /// where the first bytes and the entry offsets start and where the entries start; nil for a
    /// node without one. Checks that the index lies inside `raw`.
    @inline(__always)
    static func childIndex(_ raw: UnsafeRawBufferPointer, flags: UInt8, children: Int, at cursor: Int) throws -> (firstBytes: Int, offsets: Int, entries: Int)? {
        guard flags & 2 != 0 else { return nil }
        guard children >= 0, children < raw.count, cursor + 5 * children <= raw.count - 4 else {
            throw IndexError.corrupt("term trie child index out of range")
        }
        return (cursor, cursor + children, cursor + 5 * children)
    }

    /// Every term within `budget` edits of `query` (the nearest prefix's distance in
    /// `prefixMode`), with its distance, in byte order (see ``TrieWalker``).
    /// `fanout`: the trie's own ``RootFanout``, if known (the walk is then cheaper, not different).
    static func matches(_ trie: Bytes, query: [UInt32], budget: Int, prefixMode: Bool,
                        fanout: RootFanout? = nil) throws -> TermList {
        var walker = TrieWalker(query: query, budget: budget, prefixMode: prefixMode, listTerms: true, fanout: fanout)
        try walker.walk(trie)
        return walker.found ?? TermList()
    }

    /// The whole words within `budget` edits of `query`, as ``matches(_:query:budget:prefixMode:)``
    /// gives them, walked only inside `regions`, the same query's regions in prefix mode at the
    /// same budget: a word's distance is at least the distance to its nearest prefix, so every
    /// match lies in one of them. Falls back to a whole walk if they do not fit the trie.
    static func matches(_ trie: Bytes, query: [UInt32], budget: Int, within regions: [TermRegion],
                        fanout: RootFanout? = nil) throws -> TermList {
        var walker = TrieWalker(query: query, budget: budget, prefixMode: false, listTerms: true)
        if try walker.walk(trie, within: regions) { return walker.found ?? TermList() }
        return try matches(trie, query: query, budget: budget, prefixMode: false, fanout: fanout)
    }

    /// The matches as regions: a whole subtree where the automaton's row is final (every term
    /// with that prefix has the region's distance), single terms elsewhere, in byte order of
    /// prefixes (see ``TrieWalker``). With non-nil `terms`, the same walk also lists every
    /// matching term.
    ///
    /// `previous`: the regions of the same query without its last scalar, at the same budget and
    /// in prefix mode, if known (the keystroke before, usually). Every region of the longer query
    /// lies inside one of them, so only those are walked again; the answer is the same.
    static func regions(_ trie: Bytes, query: [UInt32], budget: Int, prefixMode: Bool, previous: [TermRegion]? = nil,
                        fanout: RootFanout? = nil, terms: inout TermList?) throws -> [TermRegion] {
        if let previous, prefixMode {
            var walker = TrieWalker(query: query, budget: budget, prefixMode: true, listTerms: terms != nil)
            if try walker.walk(trie, within: previous) {
                if terms != nil { terms = walker.found }
                return walker.regions
            }
        }
        var walker = TrieWalker(query: query, budget: budget, prefixMode: prefixMode, listTerms: terms != nil, fanout: fanout)
        try walker.walk(trie)
        if terms != nil { terms = walker.found }
        return walker.regions
    }

    /// The matches of `query` in prefix mode at `budget` (2 or more) as ``regions(_:query:budget:prefixMode:previous:fanout:terms:)``
    /// gives them, from `oneEditRegions`: the regions of `query` less its last scalar at one edit,
    /// the keystroke before when the budget has just grown (8 scalars).
    ///
    /// Why: the first keystroke at two edits walked the whole trie (about 4,000 nodes for an
    /// eight-letter word on the cities catalog, most of a 0.8 ms keystroke), with nothing from
    /// the keystroke before, whose regions were at one edit. But a word whose first scalar differs
    /// from the query's matches with one edit at most (``BandAutomaton``, Semantics.md), so apart
    /// from the subtree of the query's first scalar, a walk of two edits is a walk of one edit, and
    /// its matches lie in the one-edit regions of the shorter query (a prefix distance never falls
    /// as the query grows, see ``TrieWalker``). So: the first scalar's subtree is walked at
    /// `budget`, the rest within `oneEditRegions` at one edit (a row of the gated automaton is
    /// final, alive and within budget exactly when the one-edit row is), and the two, disjoint,
    /// are merged in byte order. Nil when `oneEditRegions` do not fit the trie (the caller then
    /// walks whole).
    static func regions(_ trie: Bytes, query: [UInt32], budget: Int, oneEditRegions: [TermRegion],
                        terms: inout TermList?) throws -> [TermRegion]? {
        precondition(budget >= 2 && query.count >= 2, "the split walk is for the step to two edits")
        let first = query[0]
        guard let scalar = Unicode.Scalar(first) else { return nil }
        let lead = Array(String(Character(scalar)).utf8)
        var rest = TrieWalker(query: query, budget: 1, prefixMode: true, listTerms: terms != nil)
        guard try rest.walk(trie, within: oneEditRegions.filter { !$0.prefix.starts(with: lead) }) else { return nil }
        var own = TrieWalker(query: query, budget: budget, prefixMode: true, listTerms: terms != nil)
        try own.walk(trie, underFirstScalar: first)
        // In byte order, every word under the first scalar sorts between the others before and after it.
        let before = rest.regions.firstIndex { !$0.prefix.lexicographicallyPrecedes(lead) } ?? rest.regions.count
        let regions = rest.regions[..<before] + own.regions + rest.regions[before...]
        if terms != nil, let restTerms = rest.found, let ownTerms = own.found { terms = TermList.merged(restTerms, ownTerms) }
        return Array(regions)
    }

    /// A varint at `cursor` (the build's ``ByteWriter/varint(_:)``), bounds-checked: a corrupt
    /// trie throws instead of reading past the value.
    @inline(__always)
    static func readVarint(_ raw: UnsafeRawBufferPointer, _ cursor: inout Int) throws -> Int {
        if cursor < raw.count, raw[cursor] < 0x80 {
            defer { cursor += 1 }
            return Int(raw[cursor])
        }
        return try readLongVarint(raw, &cursor)
    }

    private static func readLongVarint(_ raw: UnsafeRawBufferPointer, _ cursor: inout Int) throws -> Int {
        var result = 0
        var shift = 0
        while true {
            guard cursor < raw.count, shift < 63 else { throw IndexError.corrupt("bad varint in term trie") }
            let byte = raw[cursor]
            cursor += 1
            result |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }
}

/// A partial word's walk of the term trie: its regions and, listed, the terms they hold.
struct TermRegions: Sendable {
    var regions: [TermRegion]
    /// Nil when the walk was not asked to list them.
    var terms: TermList?
}

/// Part of what a typo-tolerant walk of the term trie matched: every term that starts with
/// `prefix` (a subtree), or the term `prefix` alone, all at prefix distance `distance`.
struct TermRegion {
    var prefix: [UInt8]
    var distance: Int
    var isSubtree: Bool
    /// No term of the region has a base name posting before this document: its trie node's best
    /// (``PackedTrie``); 0 when unknown.
    var best: UInt32 = 0

    /// `regions` by best descending: a stack whose `popLast()` gives the next region to read
    /// best first (``RegionMerge``, the completions' `bestWords`).
    static func bestLast(_ regions: [TermRegion]) -> [TermRegion] {
        regions.sorted { $0.best > $1.best }
    }
}

/// The bytes of the trie path being walked, in one buffer allocated per walk (terms are at most
/// 32 scalars, so `capacity` bytes hold any valid path; a longer one means corrupt labels).
struct PathBuffer {
    static let capacity = 512
    private let start = UnsafeMutablePointer<UInt8>.allocate(capacity: PathBuffer.capacity)
    var count = 0

    @inline(__always)
    mutating func append(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) throws {
        guard count + range.count <= Self.capacity else { throw IndexError.corrupt("term trie path is too long") }
        guard !range.isEmpty else { return }
        (start + count).initialize(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + range.lowerBound, count: range.count)
        count += range.count
    }

    var bytes: [UInt8] { Array(view) }

    /// The path in place, valid until the buffer changes (appended to a ``TermList`` without an
    /// array in between).
    var view: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    func deallocate() { start.deallocate() }
}
