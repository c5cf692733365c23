/// The edit automaton of a term-trie walk: the same bounded edit distance (optimal string
/// alignment, whole word or nearest prefix) and the same answers as ``EditAutomaton``, in the form
/// a walk that pushes tens of thousands of scalars per keystroke needs.
///
/// **Only the band is stored.** Row `j` (the query's prefixes against `j` scalars of the word)
/// keeps its `2·budget + 1` cells around the diagonal, `i - j ∈ [-budget, budget]`, in slots
/// `s = i - j + budget + 1`, with a sentinel slot on each side holding `budget + 1` ("too far"):
/// every cell outside the band is at least that (each edit moves the diagonal by one). In these
/// coordinates a cell's neighbours sit at fixed slots: `(i, j-1)` at `s + 1` of the row before,
/// `(i-1, j-1)` at `s`, `(i-1, j)` at `s - 1` of the same row, and `(i-2, j-2)` (a transposition)
/// at `s` two rows up. A push is one pass over `2·budget + 1` bytes, with no index arithmetic
/// beyond the slot.
///
/// **Matches as bit masks.** Each push records which band cells' query scalar equals the pushed
/// one (bit `s`). A transposition at `(i, j)` needs `q[i] = w[j-1]` and `q[i-1] = w[j]`: bit `s + 1`
/// of the previous row's mask and bit `s - 1` of this one's, so the previous scalar is never
/// compared again.
///
/// **Memory.** One allocation per automaton (rows, per-row minima and prefix distances, masks),
/// grown only for words deeper than ``EditAutomaton/capacity`` scalars; nothing per push, no
/// copy-on-write checks. Non-copyable: one walk owns it, and `deinit` frees it.
///
/// Thread ownership: one walk, on one thread.
struct BandAutomaton: ~Copyable {
    let budget: Int
    let prefixMode: Bool
    private let m: Int
    private let width: Int
    private let far: Int8
    private let query: UnsafeMutablePointer<UInt32>
    /// `levels` rows of `width` cells.
    private var rows: UnsafeMutablePointer<Int8>
    /// Per row: the minimum of its cells; the smallest distance of the whole query to a prefix of
    /// the word so far (prefix mode: the prefix distance); the band's match mask.
    private var minimum: UnsafeMutablePointer<Int8>
    private var best: UnsafeMutablePointer<Int8>
    private var masks: UnsafeMutablePointer<UInt64>
    private var levels: Int
    /// Scalars of word pushed.
    private(set) var depth = 0

    init(query scalars: [UInt32], budget: Int, prefixMode: Bool) {
        precondition(budget >= 0 && budget < 30, "edit budgets are small")
        self.budget = budget
        self.prefixMode = prefixMode
        m = scalars.count
        width = 2 * budget + 3
        far = Int8(budget + 1)
        query = .allocate(capacity: max(1, m))
        for (i, scalar) in scalars.enumerated() { query[i] = scalar }
        levels = EditAutomaton.capacity + 1
        rows = .allocate(capacity: levels * width)
        minimum = .allocate(capacity: levels)
        best = .allocate(capacity: levels)
        masks = .allocate(capacity: levels)
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
        query.deallocate()
        rows.deallocate()
        minimum.deallocate()
        best.deallocate()
        masks.deallocate()
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
        let k = budget, far = self.far
        let cur = rows + j * width, prev = cur - width
        // The band's matches: bit s when q[i] (1-based) equals the scalar, i = j + s - k - 1.
        var mask: UInt64 = 0
        let low = max(1, j - k), high = min(m, j + k)
        if low <= high {
            for i in low...high where query[i - 1] == scalar { mask |= 1 << UInt64(i - j + k + 1) }
        }
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
                v = j < Int(far) ? Int8(truncatingIfNeeded: j) : far
            } else {
                let cost: Int8 = mask & (1 &<< UInt64(s)) != 0 ? 0 : 1
                v = min(prev[s &+ 1] &+ 1, left &+ 1, prev[s] &+ cost)
                if transposable & (1 &<< UInt64(s &+ 1)) != 0, s &- 1 > firstSlot { v = min(v, above[s] &+ 1) }
                if v > far { v = far }
            }
            cur[s] = v
            left = v
            if v < rowMinimum { rowMinimum = v }
        }
        let last = m - j + k + 1
        let whole: Int8 = last >= 1 && last <= 2 * k + 1 ? cur[last] : far
        let bestSoFar = min(best[j - 1], whole)
        best[j] = bestSoFar
        minimum[j] = rowMinimum
        masks[j] = mask
        if prefixMode, bestSoFar <= Int8(k) { return true }
        return rowMinimum <= Int8(k)
    }

    private mutating func grow() {
        let old = levels
        levels *= 2
        func moved<T>(_ pointer: UnsafeMutablePointer<T>, _ count: Int, _ newCount: Int) -> UnsafeMutablePointer<T> {
            let grown = UnsafeMutablePointer<T>.allocate(capacity: newCount)
            grown.moveInitialize(from: pointer, count: count)
            pointer.deallocate()
            return grown
        }
        rows = moved(rows, old * width, levels * width)
        minimum = moved(minimum, old, levels)
        best = moved(best, old, levels)
        masks = moved(masks, old, levels)
    }

    /// The distance of the query to the current word (to its nearest prefix in prefix mode), or nil
    /// if it exceeds the budget.
    var distance: Int? {
        let d: Int8
        if prefixMode {
            d = best[depth]
        } else {
            let last = m - depth + budget + 1
            d = last >= 1 && last <= 2 * budget + 1 ? rows[depth * width + last] : far
        }
        return d <= Int8(budget) ? Int(d) : nil
    }

    /// As ``EditAutomaton/needsMatch``: only a query scalar near the diagonal can keep the next
    /// row within budget.
    var needsMatch: Bool {
        minimum[depth] >= Int8(budget) && (!prefixMode || best[depth] > Int8(budget))
    }

    /// With ``needsMatch``: whether `scalar` is a query scalar the next row could match.
    func canSurvive(_ scalar: UInt32) -> Bool {
        let j = depth + 1
        let low = max(1, j - budget - 1), high = min(m, j + budget)
        if low > high { return false }
        for i in low...high where query[i - 1] == scalar { return true }
        return false
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

    /// As ``EditAutomaton/isFinal``: every word that starts with the current one has prefix
    /// distance ``distance``.
    var isFinal: Bool {
        guard prefixMode else { return false }
        let b = best[depth]
        return b <= Int8(budget) && minimum[depth] >= b
    }
}
