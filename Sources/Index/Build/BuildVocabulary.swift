import Analysis

/// Every term a build has met, numbered as met, with the pairs each will have, and the chips'
/// counts: what the first pass over the catalog learns, so that the second can write postings in
/// term order without holding them (``PostingPairs``).
///
/// Terms are bytes, not `String`s: names are not normalised, and Swift's String equality would merge
/// canonically equal spellings (SearchToken hashes and compares bytes). A term's number is its entry
/// in a ``TermTable`` (one arena, FNV-1a): a `[[UInt8]: UInt32]` allocated a key array and ran
/// SipHash per word occurrence (intern was 0.89 s of a 4.7 s cities build).
///
/// Memory: the distinct terms' bytes, about 24 bytes a term, and one count per chip.
struct BuildVocabulary {
    private(set) var table = TermTable<Void>()
    /// Name postings (name words and token pseudo-terms) each term will have, by number.
    private(set) var namePairs: [Int] = []
    /// Description postings each term will have, by number.
    private(set) var descriptionPairs: [Int] = []
    /// Each chip (a category or a filterable attribute value) met, with its pseudo-term's number,
    /// in the order first met. Its count of entries is its pseudo-term's name pairs: a dictionary
    /// of counts by token hashed the token's strings once per entry and chip (2% of a build).
    private var chips: [(number: Int, token: SearchToken)] = []
    /// Where ``intern(_:)-(SearchToken)`` writes a token's term.
    private var tokenTermBuffer: [UInt8] = []

    enum Field { case name, description, none }

    /// The number of `term` (a new one if unseen), counting one pair of `field`.
    mutating func intern(_ term: UnsafeRawBufferPointer, _ field: Field) -> UInt32 {
        let number = table.update(term) { $0 = () }!
        if number == namePairs.count {
            namePairs.append(0)
            descriptionPairs.append(0)
        }
        switch field {
        case .name: namePairs[number] += 1
        case .description: descriptionPairs[number] += 1
        case .none: break
        }
        return UInt32(number)
    }

    /// The number of `token`'s pseudo-term (``Schema/tokenTerm(_:)``), counting one name pair: one
    /// entry under the chip.
    mutating func intern(_ token: SearchToken) -> UInt32 {
        let known = namePairs.count
        // The term is written into a buffer kept between calls (taken out of `self` while
        // `intern` mutates it).
        var term = tokenTermBuffer
        tokenTermBuffer = []
        term.removeAll(keepingCapacity: true)
        Schema.appendTokenTerm(token, to: &term)
        let number = term.withUnsafeBytes { intern($0, .name) }
        tokenTermBuffer = term
        if Int(number) == known { chips.append((Int(number), token)) }
        return number
    }

    /// Entries under each chip, in the order the chips were first met.
    var chipCounts: [(token: SearchToken, count: UInt64)] {
        chips.map { ($0.token, UInt64(namePairs[$0.number])) }
    }

    func term(_ number: Int) -> [UInt8] { table.term(at: number) }

    /// Term numbers in byte order of their terms.
    func numbersInByteOrder() -> [Int] { namePairs.indices.sorted { table.termPrecedes($0, $1) } }
}
