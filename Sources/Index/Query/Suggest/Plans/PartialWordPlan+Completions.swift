import Storage
import Synchronization

/// Completions of a lone partial word from the heavy trie nodes of its regions, without listing
/// the regions' terms.
///
/// "lixb" with one typo matches every word under "lib": 20,000 Debian words. Reading the best
/// posting of each and sorting them cost 4 ms a keystroke. Completions rank by distance, then by
/// their best entry, which is the word's posting with the smallest (level, document number): an
/// entry's level is its nearest name word, and base numbers are static rank order. Distances are
/// taken in turn. At distance `d`, a word's best entry is either one of the few entries of a lower
/// level (found by reading their words: ``Nearer``), or its first live posting at level `d`; words
/// of the second kind rank by (that posting, word), the order in which a heavy node lists its
/// `completions`. So the best words at `d` are among the first few of each region's list, the
/// words of single-term and light regions, and the words of the nearer entries.
///
/// **Exact or nothing.** A list that holds more than was read, or was truncated when built,
/// proves nothing past what was read: every word it leaves out ranks at or after a bound
/// (``LiveCompletions``: a stored best can only be deleted or nearer, which moves the word later
/// or finds it among the nearer entries' words). The answer stands when the last word chosen ranks
/// before every such bound. When a distance gives too few words and its entries are too many to read, the lists
/// cannot go on, and the caller reads postings (``completeFromPostings``). Delta entries are few and
/// are all noted, each with its level computed from its own words.
extension SuggestContext {
    /// Entries of levels below the distance being read: up to this many are read whatever the
    /// postings at the distance (the postings' path has its own fixed costs).
    static let nearerEntriesLimit = 1024
    /// Beyond ``nearerEntriesLimit``, they are read while the postings at the distance are at least
    /// this many per entry (an entry's forward test costs about as much as that many postings
    /// read and tested): else the caller reads the postings. "grab" on the synthetic 1M catalog
    /// has 1,220 typo-free entries, its words one edit away 28,615 postings.
    static let postingsPerNearerEntry = 5
    /// And never more than this many (the list is held, and read whole when the words are few).
    static let nearerEntriesCap = 8192

    /// Nearer entries from which their words are first tested through the forward index, and how
    /// many at least per region mapped to ordinals (a region costs about as much as a few entries).
    static let nearerEntriesByOrdinals = 32
    static let nearerEntriesPerRegion = 2
    /// Nearer entries not read because their forward lists have no word at the distance (for
    /// tests: a path only its speed would otherwise show).
    static let nearerEntriesSkippedByForward = Atomic<Int>(0)
    /// Times the nearer entries' reading stopped early, the words chosen ranking before the rest
    /// (for tests, likewise).
    static let nearerEntriesLeftUnread = Atomic<Int>(0)

    /// Regions whose words were left unread because the words chosen rank before their best
    /// (for tests, likewise).
    static let regionsLeftUnread = Atomic<Int>(0)

    /// Subtree regions whose list proved nothing that are split into their children, at most,
    /// per distance (each split is one seek per child).
    static let regionSplitLimit = 64

    /// Notes the completions of `partial` into `acc` and returns true, or returns false when the
    /// lists cannot prove the answer (what was noted is then correct but incomplete).
    func completeFromRegions(_ regions: [TermRegion], partial: QueryWord, deltaMatches: TermList,
                             limit: Int, into acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws -> Bool {
        guard limit > 0 else { return true }
        var word = partial
        let distances = Self.distinctLevels(regions.lazy.map(\.distance))
        var nearer: [(docnum: UInt32, level: Int)] = []
        var noted = 0
        for (index, distance) in distances.enumerated() {
            let atDistance = regions.filter { $0.distance == distance }
            let needed = limit - noted
            guard let chosen = try bestWords(atDistance, distance: distance, needed: needed, nearer: nearer,
                                             word: &word, in: txn) else { return false }
            for item in chosen {
                guard let doc = try acc.document(item.best, from: generation, in: txn) else { return false }
                acc.noteCompletion(item.term, distance: distance, key: Self.completionKey(doc, typos: item.level), docnum: item.best)
            }
            noted += chosen.count
            if noted >= limit { break }
            // Too few words here: the next distance needs this one's entries as nearer ones.
            guard index + 1 < distances.count else { break }
            guard try nearerEntriesPay(nearer.count, adding: atDistance, before: regions.filter { $0.distance == distances[index + 1] },
                                       in: txn),
                  try appendEntries(of: atDistance, level: distance, to: &nearer, in: txn) else { return false }
        }
        try noteEveryDeltaCompletion(deltaMatches, partial: partial, into: &acc, in: txn)
        return true
    }

    /// Notes the completions of every delta document of `deltaMatches`, each with its own level
    /// (the nearest of its name words).
    func noteEveryDeltaCompletion(_ deltaMatches: TermList, partial: QueryWord,
                                  into acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws {
        var word = partial
        for (term, distance) in deltaMatches {
            var docs: [UInt32] = []
            try generation.appendDeltaPostings(of: term, includeDescription: false, to: &docs, in: txn)
            for docnum in docs {
                guard let doc = try generation.document(docnum, in: txn), doc.offersCompletion(term) else { continue }
                let level = Self.bestNameDistance(&word, doc) ?? distance
                acc.noteCompletion(term, distance: distance, key: Self.completionKey(doc, typos: min(level, distance)), docnum: docnum)
            }
        }
    }

    /// A completion word with its best base entry: compared by (level, entry, word).
    private struct Ranked {
        var level: Int
        var best: UInt32
        var term: [UInt8]

        static func < (a: Ranked, b: Ranked) -> Bool {
            if a.level != b.level { return a.level < b.level }
            if a.best != b.best { return a.best < b.best }
            return a.term.lexicographicallyPrecedes(b.term)
        }
    }

    /// The best `needed` words at `distance` (fewer when there are fewer), or nil when the lists
    /// cannot prove them.
    private func bestWords(_ regions: [TermRegion], distance: Int, needed: Int, nearer: [(docnum: UInt32, level: Int)],
                           word: inout QueryWord, in txn: borrowing ReadTransaction) throws -> [Ranked]? {
        // The best `needed` words so far, ascending, each with its best candidate: kept as they
        // come instead of sorting every candidate ("libgb" within one edit meets thousands of
        // words in light regions, and sorting them was a third of the keystroke). A word pushed
        // out ranked after `needed` others, whose keys only improve, so it can only come back
        // with a better candidate of its own, which is then offered like any other.
        guard needed > 0 else { return [] }
        var chosen: [Ranked] = []
        func offer(_ candidate: Ranked) {
            if chosen.count == needed, !(candidate < chosen[needed - 1]) { return }
            if let index = chosen.firstIndex(where: { $0.term == candidate.term }) {
                guard candidate < chosen[index] else { return }
                chosen.remove(at: index)
            }
            chosen.insert(candidate, at: chosen.firstIndex { candidate < $0 } ?? chosen.count)
            if chosen.count > needed { chosen.removeLast() }
        }
        // Every word some list does not show ranks at or after this, if any is left out.
        var bound: Ranked?
        // Best first (``TermRegion/best``, the last is next): a word ranks at or after its region's
        // best, so once `needed` words are chosen and the last ranks before the next region's
        // best, no word of it or of any region after it can enter, and they are left unread.
        var pending = TermRegion.bestLast(regions)
        var splits = 0
        // One cursor on `terms` serves the regions' look-ups, walks and splits, one on the
        // variants their words' offers (see ``withOfferingCursors(in:_:)``), and one on `trie`
        // their heavy nodes.
        try withOfferingCursors(in: txn) { terms, variants in try txn.withCursor(generation.schema.trie) { trie in
            while let region = pending.popLast() {
                if chosen.count == needed, let last = chosen.last, (last.level, last.best) < (distance, region.best) {
                    Self.regionsLeftUnread.add(pending.count + 1, ordering: .relaxed)
                    break
                }
                if !region.isSubtree {
                    if let value = try terms.seek(region.prefix)?.value,
                       let best = try firstOffering(of: region.prefix[...], postings: value, variants: &variants, in: txn) {
                        offer(Ranked(level: distance, best: best, term: region.prefix))
                    }
                } else if let node = try generation.heavyNode(region.prefix, through: &trie) {
                    // Each listed word with its live best: a deleted best moves the word later.
                    let live = try liveCompletions(of: node, needed: needed, in: txn)
                    // A list whose words all moved past its own bound proves nothing: "b" on cities
                    // lists sixteen words, all Beijing's (its aliases), and once Beijing is re-weighted
                    // they all rank after Beijing's old key, the list's bound, so not even one word was
                    // proven and every "b…" word's postings were read (25 ms). Its children's lists
                    // hold other words: read those instead (they partition the subtree), a bounded
                    // number of times.
                    if let left = live.bound, splits < Self.regionSplitLimit,
                       live.words.filter({ LiveCompletions.precedes($0, left.best, left.term) }).count < needed {
                        splits += 1
                        // The children's words are the region's: its best bounds them too.
                        pending += try TermWalk.childRegions(&terms, of: region.prefix, distance: region.distance).map {
                            var child = $0
                            child.best = region.best
                            return child
                        }
                        continue
                    }
                    for word in live.words { offer(Ranked(level: distance, best: word.best, term: word.term)) }
                    if let left = live.bound {
                        let unlisted = Ranked(level: distance, best: left.best, term: left.term)
                        if bound.map({ unlisted < $0 }) ?? true { bound = unlisted }
                    }
                } else {
                    // Light: at most `heavyThreshold` postings below the prefix, so few terms, each
                    // read as the walk passes it, with the variants walked alongside.
                    var walk = AscendingVariants()
                    try TermWalk.forEachTerm(&terms, withPrefix: region.prefix) { key, value in
                        let term = Array(key)
                        if let best = try firstOffering(ofNext: term[...], postings: value, &walk, variants: &variants, in: txn) {
                            offer(Ranked(level: distance, best: best, term: term))
                        }
                        return true
                    }
                }
            }
        } }
        // Words at this distance that a nearer entry has: that entry may be their best. Such a word
        // lies in one of `regions` (they hold every word at this distance), so an entry whose
        // forward list has no ordinal in them has none and is not read ("Flyc" on the synthetic
        // 1M catalog read hundreds of "flyc…" entries to find words one edit away, most in none).
        // Worth it when the regions, a few counts along `terms` each, are few for the entries.
        var reader: ForwardIndex.Reader?
        var ranges: [Range<UInt32>] = []
        if nearer.count >= Self.nearerEntriesByOrdinals, regions.count * Self.nearerEntriesPerRegion <= nearer.count,
           let found = try generation.nameOrdinalRanges(of: regions, in: txn) {
            reader = generation.forwardReader()
            ranges = found.map(\.range)
        }
        var skipped = 0
        defer { if skipped > 0 { Self.nearerEntriesSkippedByForward.add(skipped, ordering: .relaxed) } }
        for (docnum, level) in nearer {
            // The entries ascend by (level, document), and a word an entry offers ranks by exactly
            // that pair (then by its bytes): once `needed` words are chosen and this entry comes
            // after the last of them, neither it nor any later entry can offer a word that ranks
            // before it, or improve a chosen word's best. "grab" on the synthetic 1M catalog has
            // 1,220 typo-free entries, and the words one edit away it needs are in the first few.
            if chosen.count == needed, let last = chosen.last,
               (last.level, last.best) < (level, docnum) {
                Self.nearerEntriesLeftUnread.add(1, ordering: .relaxed)
                break
            }
            if reader != nil, try reader!.hasOrdinal(inAny: ranges, docnum, txn) == false {
                skipped += 1
                continue
            }
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            doc.forEachOfferedWord(matching: { word.distance(to: $0) == distance ? () : nil }) { name, _ in
                offer(Ranked(level: level, best: docnum, term: Array(name)))
            }
        }
        if let bound, chosen.count < needed || !(chosen[chosen.count - 1] < bound) { return nil }
        return chosen
    }

    /// Whether reading the nearer entries (`count` of them, and those of `regions`) for the words of
    /// `next` (the regions at the next distance) costs less than reading those words' postings:
    /// always up to ``nearerEntriesLimit`` entries, past it while the postings are at least
    /// ``postingsPerNearerEntry`` per entry. Both are counted from the trie's nodes and the
    /// postings' heads, not read ("roth" on the synthetic 1M catalog has 2,347 typo-free entries
    /// and 4,984 postings one edit away: the entries cost twice the postings).
    private func nearerEntriesPay(_ count: Int, adding regions: [TermRegion], before next: [TermRegion],
                                  in txn: borrowing ReadTransaction) throws -> Bool {
        let entries = count + (try generation.namePostingsBound(of: regions, stoppingAfter: Self.nearerEntriesCap, in: txn))
        guard entries > Self.nearerEntriesLimit else { return true }
        let enough = entries * Self.postingsPerNearerEntry
        return try generation.namePostingsBound(of: next, stoppingAfter: enough, in: txn) > enough
    }

    /// Appends the live base entries of `regions` (at distance `level`) not yet in `nearer`, or
    /// returns false when that would pass ``nearerEntriesCap``.
    private func appendEntries(of regions: [TermRegion], level: Int, to nearer: inout [(docnum: UInt32, level: Int)],
                               in txn: borrowing ReadTransaction) throws -> Bool {
        var docs: [UInt32] = []
        func append(_ postings: Bytes) throws -> Bool {
            var cursor = try PostingCursor(postings)
            while let doc = cursor.current {
                docs.append(doc)
                guard docs.count <= Self.nearerEntriesCap else { return false }
                try cursor.advance()
            }
            return true
        }
        // One cursor reads each word's postings where its walk passes it (no look-up again).
        let fits = try txn.withCursor(generation.schema.terms) { terms -> Bool in
            for region in regions {
                guard region.isSubtree else {
                    if let value = try terms.seek(region.prefix)?.value, try !append(value) { return false }
                    continue
                }
                if let node = try generation.heavyNode(region.prefix, in: txn), node.postings > Self.nearerEntriesCap { return false }
                guard try TermWalk.forEachTerm(&terms, withPrefix: region.prefix, { try append($1) }) else { return false }
            }
            return true
        }
        guard fits else { return false }
        sortUnique(&docs)
        let known = Set(nearer.map(\.docnum))
        for docnum in docs where !known.contains(docnum) {
            if try deleted?.contains(docnum, in: txn) ?? false { continue }
            nearer.append((docnum, level))
        }
        return nearer.count <= Self.nearerEntriesCap
    }
}
