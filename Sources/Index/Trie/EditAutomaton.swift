/// Bounded edit distance (optimal string alignment) of one query word against many words, row by
/// row, so that a walk over sorted terms can share rows between terms with a common prefix.
///
/// Row `j` holds, for every prefix `q[0..<i]` of the query, the distance to the first `j` scalars
/// of the word. The minimum of a row never decreases with `j` (a transposition step is bounded by
/// the substitution step of the row before), so once it exceeds the budget no extension of the
/// word can match: that is what lets a term walk skip whole subtrees.
///
/// **Band.** A cell with `|i - j| > budget` is at least `|i - j| > budget` (each edit changes the
/// length difference by at most one), so only the `2·budget + 1` cells of the diagonal band are
/// computed, and every value is saturated at `budget + 1` ("too far"). One sentinel cell on each
/// side of a row's band holds `budget + 1`, so the next row reads its neighbours without bounds
/// tests. A push costs O(budget), whatever the query length.
///
/// **Final rows (prefix mode).** A word's prefix distance is the minimum of the last column over
/// all its prefixes. Once that minimum `d` is within budget and the row's minimum is at least `d`,
/// no extension can lower it (rows never decrease), so *every* word with the current prefix has
/// prefix distance exactly `d`. ``isFinal`` reports it: a walk then takes the whole subtree at `d`
/// without pushing another scalar, and a single word's distance is known without reading the rest.
///
/// **Memory.** All state lives in one buffer allocated up front for ``capacity`` scalars of word
/// (analysed words are at most 32 scalars) and grown only past it; a push allocates nothing and
/// checks the buffer's uniqueness once.
struct EditAutomaton {
    let query: [UInt32]
    let budget: Int
    /// Distance is to the nearest prefix of the word (the word being typed).
    let prefixMode: Bool
    /// All state in one buffer, so that a push checks uniqueness once:
    /// `levels` rows of `width` cells (row `j` at `j * width`: the query prefixes against `j`
    /// scalars of the word, plus one sentinel); then `best[j]`, the minimum of the last column over
    /// rows 0...j (prefix mode: the prefix distance); then `rowMinimum[j]`; then the word's
    /// scalars (`j`-th at `j - 1`) as bit patterns; last the query's scalars, likewise.
    private var state: [Int32]
    private var levels: Int
    private(set) var depth = 0
    private let width: Int
    private let far: Int32

    /// Scalars of word the buffer holds before it grows (analysed words have at most 32).
    static let capacity = 40

    init(query: [UInt32], budget: Int, prefixMode: Bool) {
        self.query = query
        self.budget = budget
        self.prefixMode = prefixMode
        width = query.count + 2
        far = Int32(budget + 1)
        levels = Self.capacity + 1
        state = []
        state = Self.freshState(query: query, width: width, levels: levels, far: far)
    }

    private static func freshState(query: [UInt32], width: Int, levels: Int, far: Int32) -> [Int32] {
        let m = query.count
        var state = Array(repeating: far, count: (width + 3) * levels + m)
        for i in 0..<m { state[(width + 3) * levels + i] = Int32(bitPattern: query[i]) }
        for i in 0...m { state[i] = min(Int32(i), far) }
        state[width * levels] = min(Int32(m), far)  // best[0]
        state[width * levels + levels] = 0  // rowMinimum[0]
        return state
    }

    @inline(__always) private var bestOffset: Int { width * levels }
    @inline(__always) private var minimumOffset: Int { width * levels + levels }
    @inline(__always) private var scalarOffset: Int { width * levels + 2 * levels }
    @inline(__always) private var queryOffset: Int { width * levels + 3 * levels }

    /// Drops back to `depth` scalars of the word.
    @inline(__always)
    mutating func truncate(to depth: Int) {
        self.depth = depth
    }

    /// Appends one scalar of the word. Returns false if no extension of the word can match
    /// (the caller may skip every word with this prefix).
    @inline(__always)
    mutating func push(_ scalar: UInt32) -> Bool {
        let j = depth + 1
        if j >= levels { grow() }
        let m = query.count
        let k = budget
        let w = width
        let far = self.far
        let lo = max(1, j - k), hi = min(m, j + k)
        let bestAt = bestOffset, minimumAt = minimumOffset, scalarAt = scalarOffset
        depth = j
        let queryAt = queryOffset
        return state.withUnsafeMutableBufferPointer { r in
            let before = j > 1 ? UInt32(bitPattern: r[scalarAt + j - 2]) : UInt32.max
            r[scalarAt + j - 1] = Int32(bitPattern: scalar)
            let cur = j * w, prev = cur - w, prev2 = prev - w
            // Column 0: the empty query prefix against j scalars; and the left sentinel.
            let first = min(Int32(j), far)
            r[cur] = first
            var rowMin = first
            if lo > 1 { r[cur + lo - 1] = far }
            if lo <= hi {
                for i in lo...hi {
                    let qi = UInt32(bitPattern: r[queryAt + i - 1])
                    let cost: Int32 = qi == scalar ? 0 : 1
                    var v = min(r[prev + i] + 1, r[cur + i - 1] + 1, r[prev + i - 1] + cost)
                    if i > 1, j > 1, qi == before, UInt32(bitPattern: r[queryAt + i - 2]) == scalar {
                        v = min(v, r[prev2 + i - 2] + 1)
                    }
                    if v > far { v = far }
                    r[cur + i] = v
                    if v < rowMin { rowMin = v }
                }
            }
            // Right sentinel: the next row reads one cell past this row's band.
            if hi + 1 <= m { r[cur + hi + 1] = far }
            let last: Int32 = (m >= j - k && m <= j + k) ? r[cur + m] : far
            let best = min(r[bestAt + j - 1], last)
            r[bestAt + j] = best
            r[minimumAt + j] = rowMin
            if prefixMode, best <= k { return true }
            return rowMin <= k
        }
    }

    private mutating func grow() {
        let old = state, oldLevels = levels
        let oldBest = bestOffset, oldMinimum = minimumOffset, oldScalars = scalarOffset
        levels *= 2
        state = Self.freshState(query: query, width: width, levels: levels, far: far)
        for i in 0..<(width * oldLevels) { state[i] = old[i] }
        for j in 0..<oldLevels {
            state[bestOffset + j] = old[oldBest + j]
            state[minimumOffset + j] = old[oldMinimum + j]
            state[scalarOffset + j] = old[oldScalars + j]
        }
    }

    /// The distance of the query to the current word (to its nearest prefix in prefix mode), or nil
    /// if it exceeds the budget.
    var distance: Int? {
        let m = query.count
        let d: Int32
        if prefixMode {
            d = state[bestOffset + depth]
        } else {
            d = (m >= depth - budget && m <= depth + budget) ? state[depth * width + m] : far
        }
        return d <= budget ? Int(d) : nil
    }

    /// True when only a scalar of the query can keep the next row within budget: every cell of
    /// the current row is at the budget or beyond and nothing was accepted yet, so a scalar that
    /// matches no query scalar near the diagonal (no substitution for free, no transposition)
    /// pushes every cell past the budget. A walk then tests ``canSurvive(_:)`` before pushing a
    /// child, which spares most pushes below the first levels of a big trie.
    var needsMatch: Bool {
        state[minimumOffset + depth] >= Int32(budget) && (!prefixMode || state[bestOffset + depth] > Int32(budget))
    }

    /// With ``needsMatch``: whether `scalar` is a query scalar the next row could match (the
    /// substitutions and transpositions of its band). Otherwise the push would fail.
    func canSurvive(_ scalar: UInt32) -> Bool {
        let j = depth + 1
        let m = query.count
        let low = max(1, j - budget - 1), high = min(m, j + budget)
        if low > high { return false }
        for i in low...high where query[i - 1] == scalar { return true }
        return false
    }

    /// With ``needsMatch``: the first UTF-8 bytes of the scalars ``canSurvive(_:)`` accepts, as a
    /// 256-bit set. A walk tests a child's first label byte against it before decoding the scalar:
    /// below the first levels most children of a node fail at that one bit.
    func survivorLeadBytes() -> LeadByteSet {
        var set = LeadByteSet()
        let j = depth + 1
        let m = query.count
        let low = max(1, j - budget - 1), high = min(m, j + budget)
        if low <= high {
            for i in low...high { set.insert(UTF8Scalars.leadByte(of: query[i - 1])) }
        }
        return set
    }

    /// Prefix mode: every word that starts with the current one has prefix distance ``distance``
    /// (see the type's notes), so a walk may take the whole subtree without reading it.
    var isFinal: Bool {
        guard prefixMode else { return false }
        let best = state[bestOffset + depth]
        return best <= budget && state[minimumOffset + depth] >= best
    }

    /// The distance to a whole word given as UTF-8 bytes, or nil past the budget.
    mutating func distance<C: Collection>(to word: C) -> Int? where C.Element == UInt8 {
        truncate(to: 0)
        var alive = true
        var settled = false
        UTF8Scalars.forEach(word) { scalar in
            if alive && !settled {
                alive = push(scalar)
                settled = alive && isFinal
            }
        }
        return alive ? distance : nil
    }
}

/// Decodes UTF-8 that is known to be valid (it was produced by the analyser).
enum UTF8Scalars {
    @inline(__always)
    static func forEach<C: Collection>(_ bytes: C, _ body: (UInt32) -> Void) where C.Element == UInt8 {
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let b0 = UInt32(bytes[i]); bytes.formIndex(after: &i)
            if b0 < 0x80 { body(b0); continue }
            var scalar: UInt32
            var extra: Int
            if b0 >= 0xF0 { scalar = b0 & 0x07; extra = 3 } else if b0 >= 0xE0 { scalar = b0 & 0x0F; extra = 2 } else { scalar = b0 & 0x1F; extra = 1 }
            while extra > 0, i != bytes.endIndex {
                scalar = scalar << 6 | (UInt32(bytes[i]) & 0x3F)
                bytes.formIndex(after: &i)
                extra -= 1
            }
            body(scalar)
        }
    }

    static func decode<C: Collection>(_ bytes: C) -> [UInt32] where C.Element == UInt8 {
        var out: [UInt32] = []
        forEach(bytes) { out.append($0) }
        return out
    }

    /// The scalar of the `length`-byte sequence starting at `position` (lengths from
    /// ``sequenceLength(_:)``, clipped by the caller at the end of the bytes).
    @inline(__always)
    static func scalar<C: RandomAccessCollection>(in bytes: C, at position: Int, length: Int) -> UInt32
    where C.Index == Int, C.Element == UInt8 {
        let lead = bytes[position]
        var scalar = UInt32(length == 1 ? lead : lead & (0xFF >> (length + 1)))
        for k in 1..<max(length, 1) { scalar = scalar << 6 | UInt32(bytes[position + k] & 0x3F) }
        return scalar
    }

    /// The first byte of a scalar's UTF-8 encoding.
    @inline(__always)
    static func leadByte(of scalar: UInt32) -> UInt8 {
        switch scalar {
        case ..<0x80: return UInt8(scalar)
        case ..<0x800: return UInt8(0xC0 | (scalar >> 6))
        case ..<0x10000: return UInt8(0xE0 | (scalar >> 12))
        default: return UInt8(truncatingIfNeeded: 0xF0 | (scalar >> 18))
        }
    }

    /// Length of the UTF-8 sequence that starts with `byte`.
    @inline(__always)
    static func sequenceLength(_ byte: UInt8) -> Int {
        byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
    }
}

/// A set of byte values (256 bits).
struct LeadByteSet {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    @inline(__always)
    mutating func insert(_ byte: UInt8) {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    @inline(__always)
    func contains(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }
}
