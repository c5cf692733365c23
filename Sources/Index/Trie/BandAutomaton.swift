/// Bounded edit distance (optimal string alignment) of one query word against many words, row by
/// row, so that a walk over sorted terms shares rows between terms with a common prefix. The one
/// automaton of the index: term-trie walks (``TrieWalker``), cursor walks of sorted keys
/// (``TermWalk``), and a query word's distance to a stored word (``QueryWord``).
///
/// Row `j` holds, for every prefix `q[0..<i]` of the query, the distance to the first `j` scalars
/// of the word. The minimum of a row never decreases with `j` (a transposition step is bounded by
/// the substitution step of the row before), so once it exceeds the budget no extension of the
/// word can match: that is what lets a walk skip whole subtrees.
///
/// **Final rows (prefix mode).** A word's prefix distance is the minimum of the last column over
/// all its prefixes. Once that minimum `d` is within budget and the row's minimum is at least `d`,
/// no extension can lower it (rows never decrease), so *every* word with the current prefix has
/// prefix distance exactly `d`. ``isFinal`` reports it: a walk then takes the whole subtree at `d`
/// without pushing another scalar, and a single word's distance is known without reading the rest.
///
/// **Only the band is stored.** A cell with `|i - j| > budget` is at least `budget + 1` ("too
/// far": each edit moves the diagonal by one), so row `j` keeps its `2·budget + 1` cells around
/// the diagonal, in slots `s = i - j + budget + 1`, with a sentinel slot on each side holding
/// `budget + 1`; every value is saturated at `budget + 1`. In these coordinates a cell's
/// neighbours sit at fixed slots: `(i, j-1)` at `s + 1` of the row before, `(i-1, j-1)` at `s`,
/// `(i-1, j)` at `s - 1` of the same row, and `(i-2, j-2)` (a transposition) at `s` two rows up.
/// A push is one pass over `2·budget + 1` bytes, O(budget) whatever the query's length.
///
/// **A second edit needs the right first letter.** With a budget of 2 or more, a word whose first
/// scalar differs from the query's matches with one edit at most (``EditDistance/admits(_:budget:query:word:)``,
/// the rule of `Semantics.md`): its rows are capped so that any cell of 2 or more is too far.
/// Besides ranking fewer far-fetched matches, this is what keeps a two-edit walk of a big trie
/// cheap: below every first letter but the query's, the walk is a one-edit walk.
///
/// **Matches as bit masks.** Each push records which band cells' query scalar equals the pushed
/// one (bit `s`). A transposition at `(i, j)` needs `q[i] = w[j-1]` and `q[i-1] = w[j]`: bit `s + 1`
/// of the previous row's mask and bit `s - 1` of this one's, so the previous scalar is never
/// compared again.
///
/// **Memory.** One allocation per automaton (rows, per-row minima and prefix distances, masks,
/// and a 1 KiB table of the query's positions of each ASCII scalar),
/// grown only for words deeper than ``capacity`` scalars; nothing per push, no copy-on-write
/// checks. Non-copyable: one owner, and `deinit` frees it.
///
/// Thread ownership: its owner's thread (a walk, or a query word's box).
struct BandAutomaton: ~Copyable {
    let budget: Int
    let prefixMode: Bool
    private let m: Int
    private let width: Int
    private let far: Int8
    /// The one allocation: for each ASCII scalar the query positions that hold it, `levels` match
    /// masks, the query's scalars, `levels` rows of `width` cells, then per row its minimum and
    /// the smallest distance of the whole query to a prefix of the word so far (prefix mode: the
    /// prefix distance). The pointers below point into it.
    private var storage: UnsafeMutableRawPointer
    /// For each ASCII scalar, bit `i` set when the query's scalar `i` (0-based) is it: a push finds
    /// its band's matches with one load and a shift instead of comparing the scalar with each
    /// query scalar of the band (that loop was a tenth of a two-typo walk). Filled when the query
    /// has at most 64 scalars (``positionsFit``).
    private var asciiPositions: UnsafeMutablePointer<UInt64>
    private let positionsFit: Bool
    /// No scalar of the query is outside ASCII: a non-ASCII scalar matches none.
    private let asciiQuery: Bool
    private var masks: UnsafeMutablePointer<UInt64>
    private var query: UnsafeMutablePointer<UInt32>
    private var rows: UnsafeMutablePointer<Int8>
    private var minimum: UnsafeMutablePointer<Int8>
    private var best: UnsafeMutablePointer<Int8>
    private var levels: Int
    /// Scalars of word pushed.
    private(set) var depth = 0
    /// The word's first scalar differs from the query's, and the budget is 2 or more: the word may
    /// match with one edit at most (``EditDistance/admits(_:budget:query:word:)``). Set by the push
    /// of the first scalar; every deeper row shares that scalar.
    private var gated = false

    /// Whether the current word may match with one edit at most: a gated word, or the empty word
    /// (it has no first letter to share with the query).
    private var isGated: Bool { depth == 0 ? budget >= 2 && m > 0 : gated }

    /// The largest admitted distance of the current word.
    private var admitted: Int8 { isGated ? 1 : Int8(budget) }

    /// Scalars of word the rows hold before they grow (analysed words have at most 32).
    static let capacity = 40

    init(query scalars: [UInt32], budget: Int, prefixMode: Bool) {
        precondition(budget >= 0 && budget < 30, "edit budgets are small")
        self.budget = budget
        self.prefixMode = prefixMode
        m = scalars.count
        width = 2 * budget + 3
        far = Int8(budget + 1)
        levels = Self.capacity + 1
        (storage, asciiPositions, masks, query, rows, minimum, best) = Self.allocate(levels: levels, m: m, width: width)
        for (i, scalar) in scalars.enumerated() { query[i] = scalar }
        positionsFit = m <= 64
        asciiQuery = scalars.allSatisfy { $0 < 128 }
        asciiPositions.initialize(repeating: 0, count: 128)
        if positionsFit {
            for (i, scalar) in scalars.enumerated() where scalar < 128 { asciiPositions[Int(scalar)] |= 1 << UInt64(i) }
        }
        // Row 0: the query's prefixes against the empty word, D[i][0] = i.
        for s in 0..<width {
            let i = s - budget - 1
            rows[s] = s == 0 || s == width - 1 || i < 0 || i > m ? far : Int8(min(i, budget + 1))
        }
        minimum[0] = 0
        best[0] = Int8(min(m, budget + 1))
        masks[0] = 0
    }

    deinit {
        storage.deallocate()
    }

    private static func allocate(levels: Int, m: Int, width: Int) -> (UnsafeMutableRawPointer, UnsafeMutablePointer<UInt64>,
                                                                      UnsafeMutablePointer<UInt64>,
                                                                      UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<Int8>,
                                                                      UnsafeMutablePointer<Int8>, UnsafeMutablePointer<Int8>) {
        let masksAt = 8 * 128
        let queryAt = masksAt + 8 * levels, rowsAt = queryAt + 4 * m, minimumAt = rowsAt + levels * width, bestAt = minimumAt + levels
        let storage = UnsafeMutableRawPointer.allocate(byteCount: bestAt + levels, alignment: 8)
        return (storage, storage.bindMemory(to: UInt64.self, capacity: 128),
                (storage + masksAt).bindMemory(to: UInt64.self, capacity: levels),
                (storage + queryAt).bindMemory(to: UInt32.self, capacity: m),
                (storage + rowsAt).bindMemory(to: Int8.self, capacity: levels * width),
                (storage + minimumAt).bindMemory(to: Int8.self, capacity: levels),
                (storage + bestAt).bindMemory(to: Int8.self, capacity: levels))
    }

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
        depth = j
        if j == 1 { gated = budget >= 2 && m > 0 && scalar != query[0] }
        let k = budget, far = self.far
        // A gated word keeps only cells of at most one edit: a value of 2 or more is `far`. The
        // cap commutes with the recurrence's minimum (cells under 2 are untouched, the rest stay
        // at 2 or more), so the capped rows are exactly the capped distances.
        let ceiling: Int8 = gated ? 2 : far
        let cur = rows + j * width, prev = cur - width
        // The band's matches: bit s when q[i] (1-based) equals the scalar, i = j + s - k - 1.
        var mask: UInt64 = 0
        let low = max(1, j - k), high = min(m, j + k)
        if low <= high { mask = matches(scalar, low, high, base: j - k - 1) }
        let previousMask = masks[j - 1]
        // Bit s + 1 set: q[i] = w[j-1] (bit s+1 of the previous mask) and q[i-1] = w[j] (bit
        // s-1 of this one), a transposition at the cell of slot s.
        let transposable = j > 1 ? previousMask & (mask &<< 2) : 0
        cur[0] = far
        cur[width &- 1] = far
        let above = prev - width
        var rowMinimum = far
        // The cell to the left (same row, i - 1), kept in a register: the only dependency
        // between the cells of a row.
        var left = far
        // Slots whose query index is out of 0...m hold `far`; column 0 holds j.
        let firstSlot = k &+ 1 &- j, lastSlot = m &- j &+ k &+ 1
        for s in 1...(2 &* k &+ 1) {
            var v: Int8
            if s < firstSlot || s > lastSlot {
                v = far
            } else if s == firstSlot {
                v = j < Int(ceiling) ? Int8(truncatingIfNeeded: j) : far
            } else {
                let cost: Int8 = mask & (1 &<< UInt64(s)) != 0 ? 0 : 1
                v = min(prev[s &+ 1] &+ 1, left &+ 1, prev[s] &+ cost)
                if transposable & (1 &<< UInt64(s &+ 1)) != 0, s &- 1 > firstSlot { v = min(v, above[s] &+ 1) }
                if v >= ceiling { v = far }
            }
            cur[s] = v
            left = v
            if v < rowMinimum { rowMinimum = v }
        }
        let last = m - j + k + 1
        let whole: Int8 = last >= 1 && last <= 2 * k + 1 ? cur[last] : far
        // The empty word's prefix distance (row 0) is the query's length: within budget only for
        // short queries, and, like every other prefix of a gated word, admitted only up to one edit.
        let carried = best[j - 1]
        let bestSoFar = min(j == 1 && carried >= ceiling ? far : carried, whole)
        best[j] = bestSoFar
        minimum[j] = rowMinimum
        masks[j] = mask
        if prefixMode, bestSoFar <= Int8(k) { return true }
        return rowMinimum <= Int8(k)
    }

    private mutating func grow() {
        let old = levels
        levels *= 2
        let grown = Self.allocate(levels: levels, m: m, width: width)
        grown.1.update(from: asciiPositions, count: 128)
        grown.2.update(from: masks, count: old)
        grown.3.update(from: query, count: m)
        grown.4.update(from: rows, count: old * width)
        grown.5.update(from: minimum, count: old)
        grown.6.update(from: best, count: old)
        storage.deallocate()
        (storage, asciiPositions, masks, query, rows, minimum, best) = grown
    }

    /// The distance of the query to the current word (to its nearest prefix in prefix mode), or nil
    /// if it exceeds the budget.
    @inline(__always)
    var distance: Int? {
        let d: Int8
        if prefixMode {
            d = best[depth]
        } else {
            let last = m - depth + budget + 1
            d = last >= 1 && last <= 2 * budget + 1 ? rows[depth * width + last] : far
        }
        return d <= admitted ? Int(d) : nil
    }

    /// True when only a scalar of the query can keep the next row within budget: every cell of
    /// the current row is at the budget or beyond and nothing was accepted yet, so a scalar that
    /// matches no query scalar near the diagonal (no substitution for free, no transposition)
    /// pushes every cell past the budget. A walk then tests ``canSurvive(_:)`` before pushing a
    /// child, which spares most pushes below the first levels of a big trie.
    @inline(__always)
    var needsMatch: Bool {
        let budget = admitted
        return minimum[depth] >= budget && (!prefixMode || best[depth] > budget)
    }

    /// With ``needsMatch``: whether `scalar` is a query scalar the next row could match.
    @inline(__always)
    func canSurvive(_ scalar: UInt32) -> Bool {
        let j = depth + 1
        let low = max(1, j - budget - 1), high = min(m, j + budget)
        return low <= high && matches(scalar, low, high, base: low) != 0
    }

    /// Bit `i - base` set for each query position `i` (1-based) in `low...high` that holds
    /// `scalar`; `base ≤ low` and `high - base < 64`. A push's band (`base` puts position `i` at
    /// its slot `i - j + k + 1`) and ``canSurvive(_:)`` ask it: from the ASCII table, one load, a
    /// window and a shift (a smart shift: right when `1 - base` is negative); else scalar by scalar.
    @inline(__always)
    private func matches(_ scalar: UInt32, _ low: Int, _ high: Int, base: Int) -> UInt64 {
        if positionsFit && scalar < 128 {
            // Positions low - 1 ... high - 1 (0-based): at most 64 of them, since m is.
            let window = (UInt64.max >> UInt64(63 - (high - low))) << UInt64(low - 1)
            return (asciiPositions[Int(scalar)] & window) << (1 - base)
        }
        if scalar >= 128 && asciiQuery { return 0 }
        var bits: UInt64 = 0
        for i in low...high where query[i - 1] == scalar { bits |= 1 << UInt64(i - base) }
        return bits
    }

    /// With ``needsMatch``: the first UTF-8 bytes of the scalars ``canSurvive(_:)`` accepts.
    func survivorLeadBytes() -> LeadByteSet {
        var set = LeadByteSet()
        let j = depth + 1
        let low = max(1, j - budget - 1), high = min(m, j + budget)
        if low <= high {
            for i in low...high { set.insert(UTF8Scalars.leadByte(of: query[i - 1])) }
        }
        return set
    }

    /// The query scalars a push at row `j` compares its scalar with (the band of ``push(_:)``):
    /// two scalars outside them give the same row, and a row at `j = 1` depends on nothing else.
    func bandScalars(atRow j: Int) -> [UInt32] {
        let low = max(1, j - budget), high = min(m, j + budget)
        return low <= high ? (low...high).map { query[$0 - 1] } : []
    }

    /// With ``needsMatch``: the scalars ``canSurvive(_:)`` accepts.
    func survivorScalars() -> [UInt32] {
        let j = depth + 1
        let low = max(1, j - budget - 1), high = min(m, j + budget)
        return low <= high ? (low...high).map { query[$0 - 1] } : []
    }

    /// Prefix mode: every word that starts with the current one has prefix distance ``distance``
    /// (see the type's notes), so a walk may take the whole subtree without reading it.
    @inline(__always)
    var isFinal: Bool {
        guard prefixMode else { return false }
        let b = best[depth]
        return b <= admitted && minimum[depth] >= b
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
