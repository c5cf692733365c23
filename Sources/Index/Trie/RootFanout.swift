/// Which children of a ``PackedTrie``'s root lead to which second scalars: what lets a
/// typo-tolerant walk from the root skip the root children that cannot match without reading them.
///
/// **Why.** A catalog in many scripts has thousands of first scalars (the cities catalog: 3,920
/// root children), and a whole walk with one edit reads every one of them: pushes its scalar,
/// finds the row still alive (one substitution spent), and probes its children for the one or two
/// query scalars that could keep it so. For a query in Latin letters, nearly all of those probes
/// fail, under Arabic or Han root children; they were most of a cold one-word keystroke with typos
/// (about 600 µs on cities, of which the matching part was a few dozen nodes).
///
/// **What it holds.** For each root child, its first scalar; and, inverted, for each scalar `y`,
/// the root children below which some path's second scalar is `y` (the second scalar of the
/// child's label, or else the first scalar of one of its own children's labels).
///
/// **Why it is exact.** A push at row 1 compares the pushed scalar only with the query scalars of
/// its band (``BandAutomaton/bandScalars(atRow:)``), so every root child whose first scalar is none
/// of those gets one and the same row: the row of any other scalar. When that row admits no match
/// of its own and needs a query scalar to go on (``BandAutomaton/needsMatch``), such a child can
/// match only through a second scalar that ``BandAutomaton/canSurvive(_:)`` accepts. The walk
/// therefore reads the band's children and the children listed under those scalars, in the root's
/// order, and the regions and terms it finds are the whole walk's, in the same order
/// (`TermWalkTests` compares the two).
///
/// **Cost.** Built once when a generation opens, from the trie in the memory map (the top two
/// levels: 43,000 pairs on cities, a few milliseconds), and held in three flat arrays (about 4
/// bytes a pair). Nil for a root without a child index (fewer than ``PackedTrie/indexedChildren``
/// children: a walk reads those few anyway).
///
/// Thread-safety: immutable.
struct RootFanout: Sendable {
    /// The root's child count and the trie's size: a walk of another trie does not use it.
    let rootChildren: Int
    let trieBytes: Int
    /// Each root child's first scalar, in the root's (ascending) order.
    private let firstScalars: [UInt32]
    /// The distinct second scalars, ascending; the root children under `secondScalars[i]` are
    /// `children[starts[i]..<starts[i + 1]]`, ascending.
    private let secondScalars: [UInt32]
    private let starts: [UInt32]
    private let children: [UInt32]

    /// A scalar that no query holds (not a Unicode scalar): pushed to learn the row every root
    /// child outside the band gets.
    static let otherScalar: UInt32 = .max

    /// The fanout of the trie `raw` (a ``PackedTrie`` value); nil when its root has no child index.
    /// Throws when the top two levels are corrupt.
    init?(trie raw: UnsafeRawBufferPointer) throws {
        let root = try TrieWalker.root(raw)
        var cursor = root
        let (rootFlags, _, count) = try PackedTrie.header(raw, at: root, &cursor)
        guard let index = try PackedTrie.childIndex(raw, flags: rootFlags, children: count, at: cursor) else { return nil }
        var first: [UInt32] = []
        first.reserveCapacity(count)
        // (second scalar << 32 | root child), sorted into the inverted lists below.
        var pairs: [UInt64] = []
        for child in 0..<count {
            let edge = try TrieWalker.indexedEdge(raw, parent: root, index: index, child)
            let length = min(UTF8Scalars.sequenceLength(raw[edge.labelStart]), edge.labelLength)
            first.append(UTF8Scalars.scalar(in: raw, at: edge.labelStart, length: length))
            if edge.labelLength > length {
                pairs.append(UInt64(Self.firstScalar(raw, edge.labelStart + length, end: edge.labelStart + edge.labelLength)) << 32 | UInt64(child))
                continue
            }
            var node = edge.child
            let (flags, _, grandchildren) = try PackedTrie.header(raw, at: edge.child, &node)
            if let inner = try PackedTrie.childIndex(raw, flags: flags, children: grandchildren, at: node) { node = inner.entries }
            for _ in 0..<grandchildren {
                let inner = try TrieWalker.readEdge(raw, &node, parent: edge.child)
                pairs.append(UInt64(Self.firstScalar(raw, inner.labelStart, end: inner.labelStart + inner.labelLength)) << 32 | UInt64(child))
            }
        }
        pairs.sort()
        var seconds: [UInt32] = [], starts: [UInt32] = [], children: [UInt32] = []
        children.reserveCapacity(pairs.count)
        for pair in pairs {
            let scalar = UInt32(truncatingIfNeeded: pair >> 32)
            if seconds.last != scalar {
                seconds.append(scalar)
                starts.append(UInt32(children.count))
            }
            let child = UInt32(truncatingIfNeeded: pair)
            // A child under the same scalar twice (its label's scalar, then again): listed once.
            if children.count > Int(starts.last!), children.last == child { continue }
            children.append(child)
        }
        starts.append(UInt32(children.count))
        rootChildren = count
        trieBytes = raw.count
        firstScalars = first
        secondScalars = seconds
        self.starts = starts
        self.children = children
    }

    /// The root children a walk must read, ascending: those whose first scalar is one of `band`,
    /// and those with a second scalar among `survivors`.
    func children(firstIn band: [UInt32], secondIn survivors: [UInt32]) -> [Int] {
        var picked: [Int] = []
        for scalar in band {
            if let child = Self.position(of: scalar, in: firstScalars) { picked.append(child) }
        }
        for scalar in survivors {
            guard let i = Self.position(of: scalar, in: secondScalars) else { continue }
            picked.append(contentsOf: children[Int(starts[i])..<Int(starts[i + 1])].lazy.map { Int($0) })
        }
        picked.sort()
        var unique = 0
        for child in picked where unique == 0 || picked[unique - 1] != child {
            picked[unique] = child
            unique += 1
        }
        picked.removeLast(picked.count - unique)
        return picked
    }

    /// The index of `scalar` in the ascending `scalars`, if it is there.
    private static func position(of scalar: UInt32, in scalars: [UInt32]) -> Int? {
        var low = 0, high = scalars.count
        while low < high {
            let mid = (low + high) / 2
            if scalars[mid] < scalar { low = mid + 1 } else { high = mid }
        }
        return low < scalars.count && scalars[low] == scalar ? low : nil
    }

    private static func firstScalar(_ raw: UnsafeRawBufferPointer, _ position: Int, end: Int) -> UInt32 {
        UTF8Scalars.scalar(in: raw, at: position, length: min(UTF8Scalars.sequenceLength(raw[position]), end - position))
    }
}
