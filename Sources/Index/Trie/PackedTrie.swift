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
/// u8      flags         bit 0: a term ends at this node
/// varint  n             children, in ascending label order
/// n × (string label, varint offset)
/// ```
/// The last four bytes of the value are the root's offset (u32be). Size: about 3–6 bytes per edge.
enum PackedTrie {
    static let key: [UInt8] = [0x00]

    /// Packs terms given in strictly ascending byte order.
    static func build(_ terms: [[UInt8]]) -> [UInt8] {
        var writer = ByteWriter(capacity: terms.count * 8 + 16)
        let root = node(terms, 0..<terms.count, depth: 0, into: &writer)
        writer.u32be(UInt32(root))
        return writer.bytes
    }

    /// Writes the node for `terms[range]`, which share their first `depth` bytes; returns its offset.
    private static func node(_ terms: [[UInt8]], _ range: Range<Int>, depth: Int, into writer: inout ByteWriter) -> Int {
        var lower = range.lowerBound
        let isTerm = lower < range.upperBound && terms[lower].count == depth
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
            let offset = node(terms, lower..<upper, depth: common, into: &writer)
            children.append((first[depth..<common], offset))
            lower = upper
        }
        let offset = writer.bytes.count
        writer.byte(isTerm ? 1 : 0)
        writer.varint(children.count)
        for child in children {
            writer.lengthPrefixed(child.label)
            writer.varint(child.offset)
        }
        return offset
    }

    /// Every term the automaton accepts, with its distance, in byte order. Where the automaton's
    /// row is final (``EditAutomaton/isFinal``) the subtree is listed without further automaton
    /// steps: the walk costs the trie nodes within the budget's reach plus the terms it returns.
    static func matches(_ trie: Bytes, automaton: inout EditAutomaton) throws -> [(term: [UInt8], distance: Int)] {
        var found: [(term: [UInt8], distance: Int)]? = []
        var regions: [TermRegion]? = nil
        try walk(trie, &automaton, &found, &regions)
        return found!
    }

    /// The automaton's matches as regions: a whole subtree where the row is final (every term with
    /// that prefix has the region's distance), single terms elsewhere. In byte order of prefixes.
    /// Cost: the trie nodes within the budget's reach, whatever the size of the subtrees taken.
    /// With non-nil `terms`, the same walk also lists every matching term (as ``matches(_:automaton:)``).
    static func regions(_ trie: Bytes, automaton: inout EditAutomaton,
                        terms: inout [(term: [UInt8], distance: Int)]?) throws -> [TermRegion] {
        var regions: [TermRegion]? = []
        try walk(trie, &automaton, &terms, &regions)
        return regions!
    }

    private static func walk(_ trie: Bytes, _ automaton: inout EditAutomaton, _ found: inout [(term: [UInt8], distance: Int)]?,
                             _ regions: inout [TermRegion]?) throws {
        guard trie.count >= 4 else { throw IndexError.corrupt("term trie is truncated") }
        let root = Int(trie.loadBigEndian(UInt32.self, at: trie.count - 4))
        var path = PathBuffer()
        defer { path.deallocate() }
        automaton.truncate(to: 0)
        try trie.withUnsafeBytes { raw in
            try walk(raw, root, &automaton, &path, &found, &regions)
        }
    }

    /// Matching terms go to `found` and final subtrees and single terms to `regions`, each if non-nil.
    private static func walk(_ raw: UnsafeRawBufferPointer, _ offset: Int, _ automaton: inout EditAutomaton,
                             _ path: inout PathBuffer, _ found: inout [(term: [UInt8], distance: Int)]?,
                             _ regions: inout [TermRegion]?) throws {
        var cursor = offset
        guard cursor < raw.count - 4 else { throw IndexError.corrupt("term trie offset out of range") }
        let flags = raw[cursor]
        cursor += 1
        if flags & 1 != 0, let distance = automaton.distance {
            regions?.append(TermRegion(prefix: path.bytes, distance: distance, isSubtree: false))
            found?.append((path.bytes, distance))
        }
        let children = try readVarint(raw, &cursor)
        let needsMatch = automaton.needsMatch
        let leads = needsMatch ? automaton.survivorLeadBytes() : LeadByteSet()
        for _ in 0..<children {
            let labelLength = try readVarint(raw, &cursor)
            guard labelLength > 0, cursor + labelLength <= raw.count else { throw IndexError.corrupt("term trie label out of range") }
            let labelStart = cursor
            cursor += labelLength
            let child = try readVarint(raw, &cursor)
            // Children precede their parent, so a walk always terminates, even over corrupt bytes.
            guard child < offset else { throw IndexError.corrupt("term trie child offset does not precede its parent") }
            if needsMatch {
                guard leads.contains(raw[labelStart]) else { continue }
                let length = min(UTF8Scalars.sequenceLength(raw[labelStart]), labelLength)
                if !automaton.canSurvive(UTF8Scalars.scalar(in: raw, at: labelStart, length: length)) { continue }
            }
            // Feed the label's scalars; stop at the first that proves the subtree dead, or at the
            // first that makes the row final (the rest of the label then changes nothing).
            let depth = automaton.depth
            let pathCount = path.count
            var alive = true
            var position = labelStart
            while position < labelStart + labelLength {
                let length = min(UTF8Scalars.sequenceLength(raw[position]), labelStart + labelLength - position)
                let scalar = UTF8Scalars.scalar(in: raw, at: position, length: length)
                position += length
                if !automaton.push(scalar) { alive = false; break }
                if automaton.isFinal { break }
            }
            try path.append(raw, labelStart..<position)
            if alive {
                if automaton.isFinal, let distance = automaton.distance {
                    // Every term below has this distance: take the subtree without the automaton.
                    regions?.append(TermRegion(prefix: path.bytes, distance: distance, isSubtree: true))
                    if found != nil {
                        try path.append(raw, position..<(labelStart + labelLength))
                        try collect(raw, child, distance, &path, &found!)
                    }
                } else {
                    try walk(raw, child, &automaton, &path, &found, &regions)
                }
            }
            automaton.truncate(to: depth)
            path.count = pathCount
        }
    }

    /// Appends every term of the subtree at `offset` (whose path is `path`) with `distance`.
    private static func collect(_ raw: UnsafeRawBufferPointer, _ offset: Int, _ distance: Int,
                                _ path: inout PathBuffer, _ found: inout [(term: [UInt8], distance: Int)]) throws {
        var cursor = offset
        guard cursor < raw.count - 4 else { throw IndexError.corrupt("term trie offset out of range") }
        if raw[cursor] & 1 != 0 { found.append((path.bytes, distance)) }
        cursor += 1
        let children = try readVarint(raw, &cursor)
        for _ in 0..<children {
            let labelLength = try readVarint(raw, &cursor)
            guard labelLength > 0, cursor + labelLength <= raw.count else { throw IndexError.corrupt("term trie label out of range") }
            let pathCount = path.count
            try path.append(raw, cursor..<(cursor + labelLength))
            cursor += labelLength
            let child = try readVarint(raw, &cursor)
            // Children precede their parent, so a walk always terminates, even over corrupt bytes.
            guard child < offset else { throw IndexError.corrupt("term trie child offset does not precede its parent") }
            try collect(raw, child, distance, &path, &found)
            path.count = pathCount
        }
    }

    private static func readVarint(_ raw: UnsafeRawBufferPointer, _ cursor: inout Int) throws -> Int {
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
    var terms: [(term: [UInt8], distance: Int)]?
}

/// Part of what a typo-tolerant walk of the term trie matched: every term that starts with
/// `prefix` (a subtree), or the term `prefix` alone, all at prefix distance `distance`.
struct TermRegion {
    var prefix: [UInt8]
    var distance: Int
    var isSubtree: Bool
}

/// The bytes of the trie path being walked, in one buffer allocated per walk (terms are at most
/// 32 scalars, so `capacity` bytes hold any valid path; a longer one means corrupt labels).
struct PathBuffer {
    static let capacity = 512
    private let start = UnsafeMutablePointer<UInt8>.allocate(capacity: PathBuffer.capacity)
    var count = 0

    mutating func append(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) throws {
        guard count + range.count <= Self.capacity else { throw IndexError.corrupt("term trie path is too long") }
        for offset in range {
            start[count] = raw[offset]
            count += 1
        }
    }

    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: start, count: count)) }

    func deallocate() { start.deallocate() }
}
