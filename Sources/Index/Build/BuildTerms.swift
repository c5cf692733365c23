import Foundation
import Analysis

/// A build's vocabulary in byte order, as the passes that write documents and terms look it up:
/// each term's position in byte order (the order of `terms` keys), its postings, and its forward
/// index ordinal (``ForwardIndex``).
struct BuildTerms {
    let vocabulary: BuildVocabulary
    /// Term numbers (``BuildVocabulary``) by position in byte order.
    let numbers: [Int]
    /// The position of each term number.
    let positions: [UInt32]
    /// The forward ordinal of each position: its place among the name words (a word of some title
    /// or alias, not a token pseudo-term) in byte order; `.max` for other terms, and for every term
    /// when the forward index is not written.
    let ordinals: [UInt32]

    init(vocabulary: BuildVocabulary, forwardIndex: Bool) {
        self.vocabulary = vocabulary
        numbers = vocabulary.numbersInByteOrder()
        var positions = [UInt32](repeating: 0, count: numbers.count)
        for (position, number) in numbers.enumerated() { positions[number] = UInt32(position) }
        self.positions = positions
        var ordinals = [UInt32](repeating: .max, count: numbers.count)
        if forwardIndex {
            var next: UInt32 = 0
            for (position, number) in numbers.enumerated() where vocabulary.namePairs[number] > 0 {
                let isWord = vocabulary.table.withTerm(at: number) { $0[0] >= TermWalk.firstWordByte }
                guard isWord else { continue }
                ordinals[position] = next
                next += 1
            }
        }
        self.ordinals = ordinals
    }

    var count: Int { numbers.count }

    /// Postings (name and description) of each position.
    var pairCounts: [Int] { numbers.map { vocabulary.namePairs[$0] + vocabulary.descriptionPairs[$0] } }

    var chipCounts: [(token: SearchToken, count: UInt64)] { vocabulary.chipCounts }

    /// The term at `position`.
    func term(_ position: Int) -> [UInt8] { vocabulary.term(numbers[position]) }

    /// For each position, the first position after it whose term does not start with its term:
    /// the terms that do start with it follow it at once (byte order), so the term at `p` starts
    /// with the term at `q` exactly when `q <= p < prefixEnds[q]`. One pass, keeping the positions
    /// whose terms are prefixes of the current one (shortest first). 4 bytes a term.
    func prefixEnds() -> [UInt32] {
        var ends = [UInt32](repeating: UInt32(count), count: count)
        var open: [Int] = []
        for position in 0..<count {
            while let top = open.last, !term(position, startsWithTermAt: top) {
                ends[top] = UInt32(position)
                open.removeLast()
            }
            open.append(position)
        }
        return ends
    }

    /// Whether the term at `position` starts with the term at `prefix`.
    private func term(_ position: Int, startsWithTermAt prefix: Int) -> Bool {
        vocabulary.table.withTerm(at: numbers[prefix]) { prefix in
            vocabulary.table.withTerm(at: numbers[position]) { term in
                term.count >= prefix.count && (prefix.isEmpty || memcmp(term.baseAddress!, prefix.baseAddress!, prefix.count) == 0)
            }
        }
    }
}
