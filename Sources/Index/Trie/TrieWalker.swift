import Storage

/// One typo-tolerant walk of a ``PackedTrie``: a query word's edit automaton (``BandAutomaton``)
/// walked over the trie, skipping every subtree whose row is already past the budget, and taking a
/// subtree whole where the row is final (every term below has one distance: a *region*).
///
/// **Whole walks** (``walk(_:)``) cost the trie nodes within the budget's reach, whatever the size
/// of the subtrees taken. With two edits that is every node of the first two levels and many of
/// the third: thousands of nodes, the most expensive part of a typo-tolerant keystroke.
///
/// **Walks from the previous keystroke** (``walk(_:within:)``). A person types a word one scalar
/// at a time, and the prefix distance of a longer query is never smaller (`pdist(qc, w) ≥
/// pdist(q, w)`), so whatever the longer query matches, the shorter one matched. More: where `qc`'s
/// row is final, `q`'s already was (at that node or above it: `q`'s row holds the same cells less
/// its last, and a final row needs its best distance within budget and at most its minimum, which
/// `q`'s then satisfies), so each region of `qc` lies inside exactly one region of `q`, and the
/// nodes above it are walked by neither as regions. Walking only `q`'s regions again, in their
/// order, with `qc`'s automaton therefore gives exactly the regions (and terms) a whole walk gives,
/// for the cost of descending to each region and walking inside it: microseconds instead of a
/// walk of the trie's upper levels. Should the trie not hold a region (another trie's regions), the
/// walk says so and the caller walks whole.
///
/// Lifetime: the raw bytes passed to a walk are the trie's value in a read transaction; the walker
/// copies what it returns (prefixes, terms) and keeps nothing of them.
/// Thread ownership: one walk, on one thread.
struct TrieWalker: ~Copyable {
    private var automaton: BandAutomaton
    private var path = PathBuffer()
    /// The matching terms with their distances, when asked to list them.
    private(set) var found: TermList?
    private(set) var regions: [TermRegion] = []

    /// The trie's root children by second scalar, when the caller has them: a whole walk then
    /// reads only the root children that can match (see ``RootFanout``).
    private let fanout: RootFanout?
    /// Root children a whole walk left unread through ``fanout`` (for tests).
    private(set) var rootChildrenSkipped = 0

    init(query: [UInt32], budget: Int, prefixMode: Bool, listTerms: Bool, fanout: RootFanout? = nil) {
        automaton = BandAutomaton(query: query, budget: budget, prefixMode: prefixMode)
        found = listTerms ? TermList() : nil
        self.fanout = fanout
    }

    deinit { path.deallocate() }

    /// Walks the whole trie.
    mutating func walk(_ trie: Bytes) throws {
        try trie.withUnsafeBytes { raw in
            let root = try Self.root(raw)
            automaton.truncate(to: 0)
            path.count = 0
            if let fanout, try walkRoot(raw, root, fanout) { return }
            try walkNode(raw, root)
        }
    }

    /// The root of a whole walk, reading only the children ``RootFanout`` says can match; false,
    /// having read nothing, when it cannot say (another trie's fanout, or a row that does not
    /// need a query scalar after one scalar outside the band: short queries, big budgets).
    private mutating func walkRoot(_ raw: UnsafeRawBufferPointer, _ root: Int, _ fanout: RootFanout) throws -> Bool {
        guard raw.count == fanout.trieBytes, root < raw.count - 4 else { return false }
        var cursor = root
        let (flags, best, count) = try PackedTrie.header(raw, at: root, &cursor)
        guard count == fanout.rootChildren, let index = try PackedTrie.childIndex(raw, flags: flags, children: count, at: cursor) else {
            return false
        }
        // The row every root child outside the band gets.
        let survivors: [UInt32]
        if automaton.push(RootFanout.otherScalar) {
            guard automaton.distance == nil, automaton.needsMatch else {
                automaton.truncate(to: 0)
                return false
            }
            survivors = automaton.survivorScalars()
        } else {
            survivors = []
        }
        automaton.truncate(to: 0)
        if flags & 1 != 0, let distance = automaton.distance {
            regions.append(TermRegion(prefix: [], distance: distance, isSubtree: false, best: best))
            found?.append(EmptyCollection<UInt8>(), distance: distance)
        }
        let picked = fanout.children(firstIn: automaton.bandScalars(atRow: 1), secondIn: survivors)
        rootChildrenSkipped += count - picked.count
        for child in picked {
            try walkChild(raw, try Self.indexedEdge(raw, parent: root, index: index, child), needsMatch: false)
        }
        return true
    }

    /// Walks only the subtree of the root child whose label starts with `scalar`: the words that
    /// share the query's first scalar, the only ones a walk of two edits or more takes past one
    /// edit (the rest are gated, ``BandAutomaton``). See ``PackedTrie/regions(_:query:budget:oneEditRegions:terms:)``.
    mutating func walk(_ trie: Bytes, underFirstScalar scalar: UInt32) throws {
        try trie.withUnsafeBytes { raw in
            let root = try Self.root(raw)
            automaton.truncate(to: 0)
            path.count = 0
            var cursor = root
            let (flags, _, children) = try PackedTrie.header(raw, at: root, &cursor)
            let lead = UTF8Scalars.leadByte(of: scalar)
            // The root has one child per first scalar: at most one edge is walked.
            if let index = try PackedTrie.childIndex(raw, flags: flags, children: children, at: cursor) {
                for child in 0..<children where raw[index.firstBytes + child] == lead {
                    let edge = try Self.indexedEdge(raw, parent: root, index: index, child)
                    if Self.firstScalar(raw, edge) == scalar { try walkEdge(raw, edge) }
                }
                return
            }
            for _ in 0..<children {
                let edge = try Self.readEdge(raw, &cursor, parent: root)
                if raw[edge.labelStart] == lead, Self.firstScalar(raw, edge) == scalar { try walkEdge(raw, edge) }
            }
        }
    }

    /// The first scalar of `edge`'s label.
    @inline(__always)
    private static func firstScalar(_ raw: UnsafeRawBufferPointer, _ edge: Edge) -> UInt32 {
        let length = min(UTF8Scalars.sequenceLength(raw[edge.labelStart]), edge.labelLength)
        return UTF8Scalars.scalar(in: raw, at: edge.labelStart, length: length)
    }

    /// Walks only inside `previous`, regions that hold every match of this walk, in their (byte)
    /// order: in prefix mode, the regions of this query less its last scalar at the same budget
    /// (see the type's notes); in whole-word mode, the regions of this very query in prefix mode
    /// at the same budget (a word's distance is at least that of its nearest prefix, and the
    /// automaton, never final, walks each region to its leaves). Returns false, having found
    /// nothing, when `previous` does not fit this trie: the caller then walks whole.
    mutating func walk(_ trie: Bytes, within previous: [TermRegion]) throws -> Bool {
        let fits = try trie.withUnsafeBytes { raw in
            let root = try Self.root(raw)
            automaton.truncate(to: 0)
            path.count = 0
            return try walkNode(raw, root, within: previous, previous.indices)
        }
        if !fits {
            regions = []
            if found != nil { found = TermList() }
        }
        return fits
    }

    // MARK: The walk

    struct Edge {
        var labelStart: Int
        var labelLength: Int
        var child: Int
    }

    static func root(_ raw: UnsafeRawBufferPointer) throws -> Int {
        guard raw.count >= 4 else { throw IndexError.corrupt("term trie is truncated") }
        return Int(raw.loadUnaligned(fromByteOffset: raw.count - 4, as: UInt32.self).bigEndian)
    }

    /// Matching terms go to `found` and final subtrees and single terms to `regions`.
    ///
    /// The hot loop of every typo-tolerant keystroke: it reads the trie through the raw buffer,
    /// and tests a child's first label byte before decoding its scalar when only a query scalar
    /// can keep the row alive.
    private mutating func walkNode(_ raw: UnsafeRawBufferPointer, _ offset: Int) throws {
        var cursor = offset
        let (flags, best, children) = try PackedTrie.header(raw, at: offset, &cursor)
        if flags & 1 != 0, let distance = automaton.distance {
            regions.append(TermRegion(prefix: path.bytes, distance: distance, isSubtree: false, best: best))
            found?.append(path.view, distance: distance)
        }
        let needsMatch = automaton.needsMatch
        let leads = needsMatch ? automaton.survivorLeadBytes() : LeadByteSet()
        if let index = try PackedTrie.childIndex(raw, flags: flags, children: children, at: cursor) {
            if needsMatch {
                // Only the entries whose first byte can keep the row alive are read.
                for child in 0..<children where leads.contains(raw[index.firstBytes + child]) {
                    try walkChild(raw, try Self.indexedEdge(raw, parent: offset, index: index, child), needsMatch: true)
                }
                return
            }
            cursor = index.entries
        }
        for _ in 0..<children {
            let edge = try Self.readEdge(raw, &cursor, parent: offset)
            if needsMatch, !leads.contains(raw[edge.labelStart]) { continue }
            try walkChild(raw, edge, needsMatch: needsMatch)
        }
    }

    /// A child edge of a node being walked; with `needsMatch`, first whether its scalar can keep
    /// the row alive (its lead byte already could).
    @inline(__always)
    private mutating func walkChild(_ raw: UnsafeRawBufferPointer, _ edge: Edge, needsMatch: Bool) throws {
        if needsMatch, !automaton.canSurvive(Self.firstScalar(raw, edge)) { return }
        try walkEdge(raw, edge)
    }

    /// One child edge of the node the automaton and path stand at: its label's scalars are fed
    /// until one proves the subtree dead, or one makes the row final (the rest of the label then
    /// changes nothing: the subtree is a region), else its node is walked. Leaves the automaton
    /// and path as it found them.
    private mutating func walkEdge(_ raw: UnsafeRawBufferPointer, _ edge: Edge) throws {
        let depth = automaton.depth
        let pathCount = path.count
        defer {
            automaton.truncate(to: depth)
            path.count = pathCount
        }
        guard let position = feed(raw, edge) else { return }
        let end = edge.labelStart + edge.labelLength
        try path.append(raw, edge.labelStart..<position)
        if automaton.isFinal, let distance = automaton.distance {
            // Every term below has this distance: take the subtree without the automaton.
            regions.append(TermRegion(prefix: path.bytes, distance: distance, isSubtree: true,
                                      best: try PackedTrie.best(raw, at: edge.child)))
            if found != nil {
                try path.append(raw, position..<end)
                try collect(raw, edge.child, distance)
            }
        } else {
            try walkNode(raw, edge.child)
        }
    }

    /// Feeds the label of `edge` to the automaton, standing at the edge's parent, scalar by scalar:
    /// nil at the first scalar that proves the subtree dead; else where it stopped, at the first
    /// scalar that makes the row final (the rest of the label then changes nothing) or at the end.
    @inline(__always)
    private mutating func feed(_ raw: UnsafeRawBufferPointer, _ edge: Edge) -> Int? {
        let end = edge.labelStart + edge.labelLength
        var position = edge.labelStart
        while position < end {
            let length = min(UTF8Scalars.sequenceLength(raw[position]), end - position)
            let scalar = UTF8Scalars.scalar(in: raw, at: position, length: length)
            position += length
            if !automaton.push(scalar) { return nil }
            if automaton.isFinal { break }
        }
        return position
    }

    /// Appends every term of the subtree at `offset` (whose path is `path`) with `distance`.
    private mutating func collect(_ raw: UnsafeRawBufferPointer, _ offset: Int, _ distance: Int) throws {
        var cursor = offset
        let (flags, _, children) = try PackedTrie.header(raw, at: offset, &cursor)
        if flags & 1 != 0 { found?.append(path.view, distance: distance) }
        if let index = try PackedTrie.childIndex(raw, flags: flags, children: children, at: cursor) { cursor = index.entries }
        for _ in 0..<children {
            let edge = try Self.readEdge(raw, &cursor, parent: offset)
            let pathCount = path.count
            try path.append(raw, edge.labelStart..<(edge.labelStart + edge.labelLength))
            try collect(raw, edge.child, distance)
            path.count = pathCount
        }
    }

    /// Child `child`'s edge of the node at `parent`, through its child index (``PackedTrie/childIndex(_:flags:children:at:)``), checked.
    @inline(__always)
    static func indexedEdge(_ raw: UnsafeRawBufferPointer, parent: Int, index: (firstBytes: Int, offsets: Int, entries: Int),
                            _ child: Int) throws -> Edge {
        var entry = index.entries + Int(raw.loadUnaligned(fromByteOffset: index.offsets + 4 * child, as: UInt32.self).littleEndian)
        guard entry < raw.count - 4 else { throw IndexError.corrupt("term trie child entry out of range") }
        return try readEdge(raw, &entry, parent: parent)
    }

    /// The child edge at `cursor` of the node at `parent`, checked: a label inside the trie, a
    /// child before its parent (children are written first, so a walk always ends, even over
    /// corrupt bytes).
    @inline(__always)
    static func readEdge(_ raw: UnsafeRawBufferPointer, _ cursor: inout Int, parent: Int) throws -> Edge {
        let labelLength = try PackedTrie.readVarint(raw, &cursor)
        guard labelLength > 0, cursor + labelLength <= raw.count - 4 else { throw IndexError.corrupt("term trie label out of range") }
        let labelStart = cursor
        cursor += labelLength
        let child = try PackedTrie.readVarint(raw, &cursor)
        guard child < parent else { throw IndexError.corrupt("term trie child offset does not precede its parent") }
        return Edge(labelStart: labelStart, labelLength: labelLength, child: child)
    }

    /// The derived walk at the node `offset`, which the automaton and path stand at: the regions
    /// `previous[range]` all have the path as a prefix. A single-term region at this node comes
    /// first (byte order); the others are grouped by the child edge they lie under, in the
    /// children's order. A group that is one subtree region ending on the edge is that edge walked
    /// afresh; any other group lies below the child node, which is then entered (the automaton
    /// cannot turn final on the way: the regions of the shorter query would have stopped there).
    /// Returns false when a region has no edge to lie under.
    private mutating func walkNode(_ raw: UnsafeRawBufferPointer, _ offset: Int, within previous: [TermRegion],
                                   _ range: Range<Int>) throws -> Bool {
        var cursor = offset
        let header = try PackedTrie.header(raw, at: offset, &cursor)
        let flags = header.flags
        var children = header.children
        var next = range.lowerBound
        let depth = path.count
        if next < range.upperBound, previous[next].prefix.count == depth {
            guard !previous[next].isSubtree else { return false }
            if flags & 1 != 0, let distance = automaton.distance {
                regions.append(TermRegion(prefix: path.bytes, distance: distance, isSubtree: false, best: header.best))
                found?.append(path.view, distance: distance)
            }
            next += 1
        }
        if let index = try PackedTrie.childIndex(raw, flags: flags, children: children, at: cursor) { cursor = index.entries }
        while next < range.upperBound {
            // The child edge the next region lies under: children and regions are both in byte
            // order, so the children are scanned once for all of this node's regions.
            let prefix = previous[next].prefix
            var edge: Edge?
            while children > 0 {
                children -= 1
                let candidate = try Self.readEdge(raw, &cursor, parent: offset)
                if Self.label(raw, candidate, agreesWith: prefix, from: depth) {
                    edge = candidate
                    break
                }
            }
            guard let edge else { return false }
            var group = next
            while group < range.upperBound, Self.label(raw, edge, agreesWith: previous[group].prefix, from: depth) { group += 1 }
            let first = previous[next]
            if first.prefix.count <= depth + edge.labelLength {
                // The region ends on this edge: a subtree taken there covers the whole edge.
                guard first.isSubtree, group == next + 1 else {
                    if !first.isSubtree, first.prefix.count == depth + edge.labelLength {
                        if try !enter(raw, edge, within: previous, next..<group) { return false }
                        next = group
                        continue
                    }
                    return false
                }
                try walkEdge(raw, edge)
            } else if try !enter(raw, edge, within: previous, next..<group) {
                return false
            }
            next = group
        }
        return true
    }

    /// Feeds the whole label of `edge` and walks its child within `previous[range]`; nothing
    /// matches below when the automaton dies on the way. Leaves the automaton and path as found.
    private mutating func enter(_ raw: UnsafeRawBufferPointer, _ edge: Edge, within previous: [TermRegion],
                                _ range: Range<Int>) throws -> Bool {
        let depth = automaton.depth
        let pathCount = path.count
        defer {
            automaton.truncate(to: depth)
            path.count = pathCount
        }
        let end = edge.labelStart + edge.labelLength
        guard feed(raw, edge) != nil else { return true }
        // Final above a region of the shorter query: those regions are not this query's shorter
        // form's (see the type's notes).
        if automaton.isFinal { return false }
        try path.append(raw, edge.labelStart..<end)
        return try walkNode(raw, edge.child, within: previous, range)
    }

    /// Whether the label of `edge` and `prefix` after its first `depth` bytes agree as far as
    /// both go, and `prefix` goes on past `depth`.
    private static func label(_ raw: UnsafeRawBufferPointer, _ edge: Edge, agreesWith prefix: [UInt8], from depth: Int) -> Bool {
        guard prefix.count > depth else { return false }
        let common = min(prefix.count - depth, edge.labelLength)
        for offset in 0..<common where raw[edge.labelStart + offset] != prefix[depth + offset] { return false }
        return true
    }
}
