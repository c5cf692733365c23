import Analysis
import Glibc
import Storage

/// One analysed query word with its typo budget, ready to be matched against stored words.
struct QueryWord {
    let text: String
    let bytes: [UInt8]
    let scalars: [UInt32]
    /// The word being typed: it matches a prefix of a stored word.
    let isPartial: Bool
    /// Edits allowed.
    let budget: Int
    /// The automaton ``distance(to:)`` uses (none without typos: bytes are compared).
    private let automaton: AutomatonBox?
    /// With a budget of one or two edits, the query's first two scalars (see ``distance(to:)``).
    private let start: (UInt32, UInt32)?

    init(_ text: String, isPartial: Bool, typos: TypoMode) {
        let scalars = text.unicodeScalars.map(\.value)
        self.init(text, scalars: scalars, isPartial: isPartial,
                  budget: typos == .off ? 0 : EditDistance.budget(forLength: scalars.count))
    }

    private init(_ text: String, scalars: [UInt32], isPartial: Bool, budget: Int) {
        self.text = text
        bytes = Array(text.utf8)
        self.scalars = scalars
        self.isPartial = isPartial
        self.budget = budget
        automaton = budget > 0 ? AutomatonBox(BandAutomaton(query: scalars, budget: budget, prefixMode: isPartial)) : nil
        start = (1...2).contains(budget) && scalars.count >= 2 ? (scalars[0], scalars[1]) : nil
    }

    /// The same word, matched exactly.
    func withoutTypos() -> QueryWord {
        withBudget(0)
    }

    /// The same word with at most `budget` edits (no more than its own): what a plan walks first
    /// when the nearer matches may already decide the answer.
    func withBudget(_ budget: Int) -> QueryWord {
        QueryWord(text, scalars: scalars, isPartial: isPartial, budget: min(budget, self.budget))
    }

    /// A fresh automaton for walking terms.
    var termAutomaton: BandAutomaton { BandAutomaton(query: scalars, budget: budget, prefixMode: isPartial) }

    /// The distance from this query word to a stored word (its nearest prefix when partial), or nil
    /// when it exceeds the budget.
    mutating func distance<C: Collection>(to word: C) -> Int? where C.Element == UInt8 {
        if budget == 0 {
            if isPartial { return word.starts(with: bytes) ? 0 : nil }
            return word.elementsEqual(bytes) ? 0 : nil
        }
        if word.starts(with: bytes) && (isPartial || word.count == bytes.count) { return 0 }
        if isTooFar(word) { return nil }
        return automaton!.distance(to: word)
    }

    /// Whether tests cheaper than the automaton prove `word` past a typo budget of one or two.
    func isTooFar<C: Collection>(_ word: C) -> Bool where C.Element == UInt8 {
        if !isPartial {
            // Length filter: each edit changes the length by at most one scalar, and a scalar is 1–4 bytes.
            if word.count > (scalars.count + budget) * 4 || word.count < scalars.count - budget { return true }
        }
        if let (a, b) = start, let (first, second) = Self.firstTwoScalars(word),
           first != a, first != b, second != a, second != b {
            // One edit (substitution, insertion, deletion or transposition) anywhere leaves one of
            // the query's first two scalars among the word's first two (or its prefix's): a word
            // that starts with neither is too far, without running the automaton. With two edits
            // the same holds, since a second edit needs the query's first scalar in the first
            // place (``EditDistance/admits(_:budget:query:word:)``), which such a word lacks. Most
            // words a candidate document has are such ("python3" against "libt"; a city's aliases
            // in other scripts against Latin letters), and this test is a tenth of the automaton's
            // cost.
            return true
        }
        return false
    }

    /// The first two scalars of UTF-8 `word` (valid: the analyser wrote it), nil for a shorter one.
    @inline(__always)
    private static func firstTwoScalars<C: Collection>(_ word: C) -> (UInt32, UInt32)? where C.Element == UInt8 {
        var bytes = word.makeIterator()
        guard let first = UTF8Scalars.next(&bytes), let second = UTF8Scalars.next(&bytes) else { return nil }
        return (first, second)
    }

    /// The minimum distance to any word of a " "-joined word list, or nil.
    mutating func bestDistance(in words: Bytes) -> Int? {
        if budget == 0 { return Self.occurs(bytes, in: words, asPrefix: isPartial) ? 0 : nil }
        var best: Int?
        var start = 0
        let count = words.count
        while start < count {
            var end = start
            while end < count, words[end] != 0x20 { end += 1 }
            if end > start, let d = distance(to: words[start..<end]) {
                if d == 0 { return 0 }
                if best == nil || d < best! { best = d }
            }
            start = end + 1
        }
        return best
    }
}

extension QueryWord {
    /// Whether a word of the " "-joined list `words` is `word` (or starts with it, `asPrefix`).
    ///
    /// Why not word by word: without typos a candidate is verified by this scan alone, and a
    /// multilingual entry's alias words run to hundreds of bytes ("South Ki" on the cities catalog
    /// reads thousands of them). A word starts at 0 or after a space, so the scan asks `memchr`
    /// (vectorised in glibc) for the word's first byte and compares only where it follows a space.
    static func occurs(_ word: [UInt8], in words: Bytes, asPrefix: Bool) -> Bool {
        let length = word.count
        guard length > 0 else { return asPrefix && words.contains { $0 != 0x20 } }
        return words.withUnsafeBytes { list -> Bool in
            let count = list.count
            guard count >= length, let base = list.baseAddress else { return false }
            return word.withUnsafeBytes { needle -> Bool in
                let wordStart = needle.baseAddress!
                let first = Int32(word[0])
                var from = 0
                while count - from >= length {
                    guard let found = memchr(base + from, first, count - from - length + 1) else { return false }
                    let start = base.distance(to: UnsafeRawPointer(found))
                    if start == 0 || base.load(fromByteOffset: start - 1, as: UInt8.self) == 0x20,
                       memcmp(base + start, wordStart, length) == 0,
                       asPrefix || start + length == count || base.load(fromByteOffset: start + length, as: UInt8.self) == 0x20 {
                        return true
                    }
                    from = start + 1
                }
                return false
            }
        }
    }
}

/// A query word's automaton, shared by the word's copies (the words of one query, on one thread).
/// Sharing is safe because ``BandAutomaton/distance(to:)`` starts from the empty word every time
/// and its answer is read before anything else uses the automaton.
private final class AutomatonBox {
    /// Unchecked: one query's words are used by one thread, one call at a time (see above), and a
    /// checked access per compared word costs what the comparison does.
    @exclusivity(unchecked) var automaton: BandAutomaton
    /// The distances already computed, made once the automaton has run ``DistanceMemo/runsBefore`` times.
    @exclusivity(unchecked) private var memo: DistanceMemo?
    @exclusivity(unchecked) private var runs = 0

    init(_ automaton: consuming BandAutomaton) {
        self.automaton = automaton
    }

    /// The automaton's distance to `word`, remembered: candidates repeat their words ("bra brau"
    /// on the synthetic 1M catalog compares "bra", every candidate's word, once per candidate:
    /// a quarter of the keystroke was the automaton), and a memo hit is a hash and a comparison
    /// of a few bytes, against a row of the automaton per scalar.
    func distance<C: Collection>(to word: C) -> Int? where C.Element == UInt8 {
        guard memo != nil || runs >= DistanceMemo.runsBefore else {
            runs += 1
            return automaton.distance(to: word)
        }
        if memo == nil { memo = DistanceMemo() }
        let remembered = word.withContiguousStorageIfAvailable { bytes in
            memo!.distance(to: UnsafeRawBufferPointer(bytes)) { automaton.distance(to: $0) }
        }
        return remembered ?? automaton.distance(to: word)
    }
}

/// Distances of one query word to stored words, by the words' bytes: a direct-mapped table of
/// ``slots`` slots of ``slotSize`` bytes, each a word of at most ``width`` bytes (longer words are
/// not kept) with its distance; a slot is overwritten by the next word that hashes to it. Exact:
/// a hit compares the whole word. One allocation, freed with the memo's owner.
final class DistanceMemo {
    static let slots = 256
    static let slotSize = 32
    /// Slot layout: byte 0 the word's length (0: empty), byte 1 its distance plus one (0: past
    /// the budget), then the word.
    static let width = slotSize - 2
    /// A query word's automaton runs before it makes a memo, which pays for its 8 KiB only then:
    /// a keystroke that compares a few words never makes one.
    static let runsBefore = 48

    private let table: UnsafeMutableRawPointer

    init() {
        table = UnsafeMutableRawPointer.allocate(byteCount: Self.slots * Self.slotSize, alignment: 16)
        table.initializeMemory(as: UInt8.self, repeating: 0, count: Self.slots * Self.slotSize)
    }

    deinit { table.deallocate() }

    /// The remembered distance to `word`, else `compute`'s, remembered.
    func distance(to word: UnsafeRawBufferPointer, compute: (UnsafeRawBufferPointer) -> Int?) -> Int? {
        let count = word.count
        guard count > 0, count <= Self.width, let bytes = word.baseAddress else { return compute(word) }
        // FNV-1a: a multiply a byte, on words of a few bytes.
        var hash: UInt32 = 2_166_136_261
        for byte in word { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let slot = table + Int(hash >> 24) * Self.slotSize
        if slot.load(as: UInt8.self) == UInt8(truncatingIfNeeded: count), memcmp(slot + 2, bytes, count) == 0 {
            let known = Int(slot.load(fromByteOffset: 1, as: UInt8.self))
            return known == 0 ? nil : known - 1
        }
        let distance = compute(word)
        slot.storeBytes(of: UInt8(truncatingIfNeeded: count), as: UInt8.self)
        slot.storeBytes(of: UInt8(truncatingIfNeeded: (distance ?? -1) + 1), toByteOffset: 1, as: UInt8.self)
        (slot + 2).copyMemory(from: bytes, byteCount: count)
        return distance
    }
}

/// Splits a " "-joined word list (zero-copy).
struct WordList: Sequence {
    let bytes: Bytes
    struct Iterator: IteratorProtocol {
        let bytes: Bytes
        var position = 0
        mutating func next() -> Bytes? {
            let count = bytes.count
            while position < count {
                var end = position
                while end < count, bytes[end] != 0x20 { end += 1 }
                defer { position = end + 1 }
                if end > position { return bytes[range: position..<end] }
            }
            return nil
        }
    }
    func makeIterator() -> Iterator { Iterator(bytes: bytes) }
}
