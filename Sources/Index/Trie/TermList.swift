/// Terms a query word matches, each with its distance, in byte order: every term's bytes in one
/// arena, not an array a term.
///
/// Why: a typo'd partial word matches thousands of words ("libt" within one edit matches the
/// 20,000 words under "lib" on Debian). As an array of `[UInt8]`, each was allocated, copied and
/// freed again on every keystroke, 40% of "python3-libt". Here a walk appends to three arrays that
/// grow geometrically, a term read back is a slice of the arena (a retain, no copy), and dropping
/// the list frees three buffers.
///
/// Layout: `bytes` holds the terms back to back; `ends[i]` is where term `i` ends in it (so term
/// `i` is `bytes[ends[i - 1]..<ends[i]]`, from 0 for the first); `distanceBytes[i]` is its distance
/// (a budget is at most 2, so one byte). Appending is amortised O(length); reading term `i` is O(1).
///
/// ```swift
/// var list = TermList()
/// list.append([0x61, 0x62], distance: 1)   // "ab"
/// list.append([0x61, 0x63], distance: 0)   // "ac"
/// list[1].term == [0x61, 0x63][...]        // true
/// list.map(\.distance) == [1, 0]           // true
/// ```
struct TermList: RandomAccessCollection, Sendable {
    typealias Element = (term: ArraySlice<UInt8>, distance: Int)
    typealias Index = Int
    typealias Indices = Range<Int>

    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []
    private var distanceBytes: [UInt8] = []

    init() {}

    /// The list of `terms`, in their order (they must already be in byte order where a caller
    /// relies on it, as ``merged(_:_:)`` does).
    init<Term: Collection<UInt8>>(_ terms: some Sequence<(Term, Int)>) {
        for (term, distance) in terms { append(term, distance: distance) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { ends.count }
    var count: Int { ends.count }
    var isEmpty: Bool { ends.isEmpty }

    @inline(__always)
    subscript(position: Int) -> Element {
        (term(at: position), distance(at: position))
    }

    /// Term `position`'s bytes, a slice of the arena.
    @inline(__always)
    func term(at position: Int) -> ArraySlice<UInt8> {
        let start = position == 0 ? 0 : Int(ends[position - 1])
        return bytes[start..<Int(ends[position])]
    }

    @inline(__always)
    func distance(at position: Int) -> Int { Int(distanceBytes[position]) }

    /// The terms alone, lazily (for the postings readers that take any sequence of keys).
    var terms: LazyMapSequence<Range<Int>, ArraySlice<UInt8>> { indices.lazy.map { term(at: $0) } }

    /// The distances alone, lazily: read without slicing a term (a retain and a release each).
    var distances: LazyMapSequence<[UInt8], Int> { distanceBytes.lazy.map { Int($0) } }

    /// The positions of the terms at `distance`, in order.
    func indices(atDistance distance: Int) -> LazyFilterSequence<Range<Int>> {
        indices.lazy.filter { self.distanceBytes[$0] == distance }
    }

    /// The terms at `distance`, in order.
    func atDistance(_ distance: Int) -> TermList {
        var kept = TermList()
        for position in indices(atDistance: distance) { kept.append(term(at: position), distance: distance) }
        return kept
    }

    /// The memory the list holds, for a cache's budget: three arrays (a 32-byte header each), the
    /// terms' bytes, and five bytes a term (its end and its distance).
    var memoryBytes: Int { 96 + bytes.count + 5 * ends.count }

    mutating func append(_ term: some Collection<UInt8>, distance: Int) {
        precondition((0...Int(UInt8.max)).contains(distance), "a distance is a budget's, at most 2")
        bytes.append(contentsOf: term)
        precondition(bytes.count <= Int(UInt32.max), "a term list's bytes fit 32 bits")
        ends.append(UInt32(truncatingIfNeeded: bytes.count))
        distanceBytes.append(UInt8(truncatingIfNeeded: distance))
    }

    mutating func append(_ element: Element) {
        append(element.term, distance: element.distance)
    }

    mutating func reserveCapacity(terms: Int, bytes byteCount: Int) {
        ends.reserveCapacity(terms)
        distanceBytes.reserveCapacity(terms)
        bytes.reserveCapacity(byteCount)
    }

    /// The terms of `self` for which `isIncluded` holds, in order.
    func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> TermList {
        var kept = TermList()
        for element in self where try isIncluded(element) { kept.append(element) }
        return kept
    }

    /// Merges two lists (both in byte order, each without repeats: base and delta terms, or the
    /// two parts of a split walk), keeping each term's smallest distance, in byte order. O(n):
    /// one pass over both, no hashing.
    static func merged(_ base: TermList, _ delta: TermList) -> TermList {
        guard !delta.isEmpty else { return base }
        var merged = TermList()
        merged.reserveCapacity(terms: base.count + delta.count, bytes: 0)
        var i = 0, j = 0
        while i < base.count || j < delta.count {
            if j == delta.count || (i < base.count && base[i].term.lexicographicallyPrecedes(delta[j].term)) {
                merged.append(base[i])
                i += 1
            } else if i == base.count || delta[j].term.lexicographicallyPrecedes(base[i].term) {
                merged.append(delta[j])
                j += 1
            } else {
                merged.append(base[i].term, distance: Swift.min(base[i].distance, delta[j].distance))
                i += 1
                j += 1
            }
        }
        return merged
    }
}
