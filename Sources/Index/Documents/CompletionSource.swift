import Analysis
import Storage

/// Which of a document's name words it offers as completions (Semantics.md, "completions"): every
/// title word, and every alias word that is not another spelling of one of its title words
/// (``EditDistance/isSpellingVariant(_:of:)``). "sao pa" completes to "sao Paulo" from São Paulo,
/// not also to "sao Palo", "sao palw", "sao Paolo", "sao Paul" and "sao Paulas" from its aliases,
/// which had filled the list and pushed the title's spelling out of it.
///
/// A property of the (word, document) pair alone, so a word's best entry is still one entry of
/// the catalog, found by every plan and merged across shards exactly as before: among the entries
/// that offer the word.
enum CompletionSource {
    /// Whether alias word `word` spells a word of `sortTitle` (the analysed title, words joined by
    /// spaces) another way. Cheap unless a title word shares its first two scalars: then one
    /// bounded edit distance of two short words.
    ///
    /// The rule is ``EditDistance/isSpellingVariant(_:of:)``'s (the tests' reference), computed on
    /// the stored bytes by the index's automaton: within ``EditDistance/variantMaximumDistance``
    /// edits, both words of at least ``EditDistance/variantMinimumLength`` scalars, not equal. It
    /// runs for every alias word a delta document offers while a keystroke reads it (the base's
    /// variants are listed at build time), where the string form (two `String`s and three rows
    /// per title word) was a sixth of a one-word keystroke on an updated shard.
    static func isVariant(_ word: some Collection<UInt8>, titleWords sortTitle: Bytes) -> Bool {
        guard let prefix = firstTwoScalars(word) else { return false }
        for title in WordList(bytes: sortTitle) {
            // Both have the minimum length when both have two first scalars to compare.
            guard let other = firstTwoScalars(title), other.elementsEqual(prefix), !title.elementsEqual(word) else { continue }
            // Their first scalars agree, so the automaton's cap on second edits does not apply:
            // its distance is the plain one, within the budget.
            var automaton = BandAutomaton(query: UTF8Scalars.decode(word), budget: EditDistance.variantMaximumDistance, prefixMode: false)
            if automaton.distance(to: title) != nil { return true }
        }
        return false
    }

    /// The bytes of the first two scalars of `word`, or nil when it has fewer than
    /// ``EditDistance/variantMinimumLength`` scalars (never a variant).
    private static func firstTwoScalars<C: Collection<UInt8>>(_ word: C) -> C.SubSequence? {
        var scalars = 0
        var end = word.startIndex
        var index = word.startIndex
        while index != word.endIndex {
            if word[index] & 0xC0 != 0x80 {
                scalars += 1
                if scalars == 3 { end = index }
                if scalars == EditDistance.variantMinimumLength { return word[word.startIndex..<end] }
            }
            index = word.index(after: index)
        }
        return nil
    }
}

extension DocumentView {
    /// Calls `body` with each name word the document offers as a completion that `matches`
    /// accepts, and what `matches` returned for it: its title words, then its alias words that
    /// spell no title word another way (``CompletionSource``). `matches` runs first, so only the
    /// alias words it accepts are checked for being variants. No array of the two lists is made.
    func forEachOfferedWord<Match>(matching matches: (Bytes) -> Match?, _ body: (Bytes, Match) throws -> Void) rethrows {
        for word in WordList(bytes: sortTitle) {
            if let match = matches(word) { try body(word, match) }
        }
        for word in WordList(bytes: aliasWords) {
            if let match = matches(word), !CompletionSource.isVariant(word, titleWords: sortTitle) { try body(word, match) }
        }
    }

    /// Whether the document offers name word `term` as a completion: a title word, or an alias
    /// word that is not a spelling variant of one (``CompletionSource``). A term the document does
    /// not have is not offered.
    func offersCompletion(_ term: some Collection<UInt8>) -> Bool {
        for word in WordList(bytes: sortTitle) where word.elementsEqual(term) { return true }
        for word in WordList(bytes: aliasWords) where word.elementsEqual(term) {
            return !CompletionSource.isVariant(term, titleWords: sortTitle)
        }
        return false
    }
}
