/// Bounded edit distance (optimal string alignment) of one query word against many words, row by
/// row, so that a walk over sorted terms can share rows between terms with a common prefix.
///
/// Row `j` holds, for every prefix of the query, the distance to the first `j` scalars of the
/// word. The minimum of a row never decreases with `j` (a transposition step is bounded by the
/// substitution step of the row before), so once it exceeds the budget no extension of the word can
/// match: that is what lets the term walk skip whole subtrees.
struct EditAutomaton {
    let query: [UInt32]
    let budget: Int
    /// Distance is to the nearest prefix of the word (the word being typed).
    let prefixMode: Bool
    private var rows: [Int32]
    private var words: [UInt32]
    /// best[j]: minimum of row[i][m] for i ≤ j (prefix mode).
    private var best: [Int32]
    private(set) var depth = 0

    init(query: [UInt32], budget: Int, prefixMode: Bool) {
        self.query = query
        self.budget = budget
        self.prefixMode = prefixMode
        let width = query.count + 1
        rows = Array(repeating: 0, count: width * 8)
        for i in 0..<width { rows[i] = Int32(i) }
        words = []
        best = [Int32(query.count)]
    }

    private var width: Int { query.count + 1 }

    /// Drops back to `depth` scalars of the word.
    mutating func truncate(to depth: Int) {
        self.depth = depth
        if words.count > depth { words.removeLast(words.count - depth) }
        if best.count > depth + 1 { best.removeLast(best.count - depth - 1) }
    }

    /// Appends one scalar of the word. Returns false if no extension of the word can match
    /// (the caller may skip every word with this prefix).
    mutating func push(_ scalar: UInt32) -> Bool {
        let w = width
        let j = depth + 1
        if rows.count < (j + 1) * w { rows.append(contentsOf: repeatElement(0, count: rows.count)) }
        words.append(scalar)
        let cur = j * w, prev = (j - 1) * w, prev2 = (j - 2) * w
        let before = j > 1 ? words[j - 2] : UInt32.max
        var rowMin: Int32 = Int32(j)
        query.withUnsafeBufferPointer { q in
            rows.withUnsafeMutableBufferPointer { r in
                r[cur] = Int32(j)
                for i in 1..<w {
                    let cost: Int32 = q[i - 1] == scalar ? 0 : 1
                    var v = min(r[prev + i] + 1, r[cur + i - 1] + 1, r[prev + i - 1] + cost)
                    if i > 1, j > 1, q[i - 1] == before, q[i - 2] == scalar {
                        v = min(v, r[prev2 + i - 2] + 1)
                    }
                    r[cur + i] = v
                    if v < rowMin { rowMin = v }
                }
            }
        }
        depth = j
        best.append(min(best[j - 1], rows[cur + w - 1]))
        if prefixMode, best[j] <= budget { return true }
        return rowMin <= budget
    }

    /// The distance of the query to the current word (to its nearest prefix in prefix mode), or nil
    /// if it exceeds the budget.
    var distance: Int? {
        let d = prefixMode ? best[depth] : rows[depth * width + width - 1]
        return d <= budget ? Int(d) : nil
    }

    /// The distance to a whole word given as UTF-8 bytes, or nil past the budget.
    mutating func distance<C: Collection>(to word: C) -> Int? where C.Element == UInt8 {
        truncate(to: 0)
        var alive = true
        UTF8Scalars.forEach(word) { scalar in
            if alive { alive = push(scalar) }
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

    /// Length of the UTF-8 sequence that starts with `byte`.
    @inline(__always)
    static func sequenceLength(_ byte: UInt8) -> Int {
        byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
    }
}
