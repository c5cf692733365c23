import Storage
import Synchronization

/// The plan for a query that is one partial word and nothing else, the commonest keystroke there
/// is ("pyth", "limb", "aurangab"), with or without typos.
///
/// An entry's typos are the smallest prefix distance of its name words: its *level*. Levels are
/// taken in turn, and within a level the matching base documents are merged in document (= rank)
/// order until nothing later can enter the entries (a document of a higher level ranks after, and
/// only a typo-free one can start with the typed text).
///
/// **Regions, not terms.** The term trie is walked with the word's edit automaton only until its
/// row is final (``BandAutomaton/isFinal``): from there every term below has the same distance, so
/// the walk returns the subtree as one ``TermRegion`` instead of listing its terms. A region's
/// documents come from its heavy trie node's `all` list (its best documents, best first), a light
/// region's from its few terms' postings, a single term's from its posting list. "limb" with one
/// typo matches every word under "lib" (20,000 Debian package words): that is one heavy node here,
/// not 20,000 posting lists.
///
/// **Exact despite truncated lists.** A heavy list that was cut at `listSize` documents proves
/// nothing past its last document. The merge stops there; if the entries still want more, the
/// region is expanded into its terms' posting lists from that document on, and the merge
/// continues. No cap ever changes an answer.
///
/// **Nearer matches first.** A word of eight letters or more may have two typos, and a walk within
/// two edits visits every one- and two-letter prefix of the trie (on a multilingual catalog, over
/// 40,000 nodes: milliseconds). Every match with two typos ranks after every match with fewer, in
/// entries and in completions alike, so the plan first answers within one edit; when that fills
/// the entries and the completions, two-typo matches cannot enter and that answer is the answer.
/// Only otherwise is the wider walk made.
enum PartialWordPlan: SuggestPlan {
    /// How many times the region lists could not prove a lone partial word's completions and every
    /// matching word's postings were read instead (for tests: a costly path that only their
    /// answers' speed would otherwise show).
    static let completionsFromPostings = Atomic<Int>(0)
    /// Regions of a level whose documents were never read, the entries full before the merge
    /// reached their best documents (for tests, likewise: ``RegionMerge``).
    static let regionsLeftUnread = Atomic<Int>(0)
    /// Completions from postings whose typo-free documents were a prefix's kept bitmap (for tests,
    /// likewise: ``TermBitmaps``).
    static let keptLevelBitmaps = Atomic<Int>(0)

    static let kind = SuggestPlanKind.partialWord

    static func evaluate(_ context: inout SuggestContext, in txn: borrowing ReadTransaction) throws -> PlanOutcome {
        guard context.query.complete.isEmpty, context.query.tokens.isEmpty, let partial = context.query.partial else { return .unproven }
        if partial.budget >= 2 {
            var nearer = try context.newAccumulator(countCategories: false, in: txn)
            if try context.evaluatePartialOnly(partial.withBudget(partial.budget - 1), &nearer, in: txn) {
                return .exact(nearer)
            }
        }
        var acc = try context.newAccumulator(countCategories: false, in: txn)
        try context.evaluatePartialOnly(partial, &acc, in: txn)
        return .exact(acc)
    }
}

extension SuggestContext {
    /// Reads the matches of `partial` (the query's partial word, perhaps with a smaller budget)
    /// into `acc`. Returns whether the answer is full: every section wanted is filled, so matches
    /// with more typos than `partial.budget` could not change it.
    @discardableResult
    fileprivate mutating func evaluatePartialOnly(_ partial: QueryWord, _ acc: inout SuggestAccumulator,
                                                  in txn: borrowing ReadTransaction) throws -> Bool {
        let completionLimit = request.limits.completions
        let wantsCompletions = acc.wantsCompletions
        var noTerms: TermList?
        let regions = try generation.nameRegions(matching: partial, terms: &noTerms, in: txn)
        let hasDelta = try txn.count(generation.schema.deltaTerms) > 0
        // The delta's matches. With its prefix lists, they are read from them best-first and only
        // as far as needed: the typo-free ones by the partial word's own list (not listed here),
        // those with typos by the regions of the delta's words (SuggestContext+TypoDelta.swift).
        // Without the lists, every delta term that matches is listed and its documents all read.
        let lists = hasDelta ? try generation.deltaLists(in: txn) : nil
        var deltaMatches = TermList()
        var deltaRegions: [TermRegion] = []
        if hasDelta && lists == nil {
            deltaMatches = try generation.deltaTerms(matching: partial, namesOnly: true, in: txn)
        } else if hasDelta && partial.budget > 0 {
            deltaRegions = try generation.deltaRegions(matching: partial, in: txn).filter { $0.distance > 0 }
        }
        acc.wantsCompletions = false
        var considered = DocumentSet()
        let levels = Self.distinctLevels(regions.lazy.map(\.distance),
                                         deltaMatches.distances + deltaRegions.lazy.map(\.distance) + (lists == nil ? [] : [0]))
        for level in levels where acc.entries.limit > 0 {
            if acc.entries.isFull, let worst = acc.entries.worst, worst.typos < level { break }
            var merge = RegionMerge(regions.filter { $0.distance == level }, generation: generation)
            var previous: UInt32?
            var read = 0
            while true {
                // Checked before reading on: the merge may have to expand a truncated region.
                if acc.entries.isFull, let worst = acc.entries.worst,
                   worst.typos < level || (worst.typos == level && (worst.startsWith || level > 0)) { break }
                guard let docnum = try merge.peek(in: txn) else { break }
                try checkStop(&read)
                try merge.advance()
                if docnum == previous { continue }
                previous = docnum
                if considered.contains(docnum) { continue }
                if let deleted, try deleted.contains(docnum, in: txn) { continue }
                considered.insert(docnum)
                guard let doc = try generation.document(docnum, in: txn) else { continue }
                // Its nearest name word is at this level: one at a nearer level would have put it
                // among the documents considered there, every one of which was read (a level is
                // left early only when the answer is settled, and then no farther one is begun).
                try consider(doc, &acc, knownTypos: level)
            }
            if merge.unreadRegions > 0 { PartialWordPlan.regionsLeftUnread.add(merge.unreadRegions, ordering: .relaxed) }
            if level == 0, let lists {
                // Each list read while what it still holds could enter (a document entered here and
                // met again at a farther level is recomputed, and entering it twice is a no-op).
                try enterDeltaEntries(lists, startsWith: true, &acc, in: txn)
                try enterDeltaEntries(lists, startsWith: false, &acc, in: txn)
            }
            if let lists, level > 0 {
                try enterTypoDeltaEntries(deltaRegions.filter { $0.distance == level }, level: level, lists: lists,
                                          considered: &considered, &acc, in: txn)
            } else if hasDelta {
                var docs: [UInt32] = []
                for index in deltaMatches.indices(atDistance: level) {
                    try generation.appendDeltaPostings(of: deltaMatches.term(at: index), includeDescription: false, to: &docs, in: txn)
                }
                sortUnique(&docs)
                for docnum in docs where considered.insert(docnum) {
                    guard let doc = try generation.document(docnum, in: txn) else { continue }
                    try consider(doc, &acc)
                }
            }
        }
        if wantsCompletions {
            acc.wantsCompletions = true
            if try !completeFromRegions(regions, partial: partial, deltaMatches: deltaMatches, limit: completionLimit,
                                        into: &acc, in: txn) {
                // The lists could not prove them: the terms themselves are needed (the delta's
                // with typos too, listed now).
                PartialWordPlan.completionsFromPostings.add(1, ordering: .relaxed)
                var baseTerms: TermList? = TermList()
                _ = try generation.nameRegions(matching: partial, terms: &baseTerms, in: txn)
                if !deltaRegions.isEmpty { deltaMatches = try typoDeltaTerms(partial, in: txn) }
                let matches = TermList.merged(baseTerms ?? TermList(), deltaMatches)
                try completeFromPostings(matches, partial: partial, limit: completionLimit, hasDelta: hasDelta,
                                         deltaListed: lists != nil, into: &acc, in: txn)
                deltaRegions = []
            }
            // After the base's words, whose bests count towards proving the delta's. With typo'd
            // delta matches, their reading reads the typo-free delta documents whole and notes
            // those words too, so the typo-free list is read best-first only without such matches,
            // or when those documents are too many to read whole: then with every typo'd match.
            if let lists {
                if deltaRegions.isEmpty {
                    try noteDeltaCompletions(lists, wanted: completionLimit, &acc, in: txn)
                } else if try !noteTypoDeltaCompletions(deltaRegions, partial: partial, lists: lists, wanted: completionLimit, &acc, in: txn) {
                    try noteDeltaCompletions(lists, wanted: completionLimit, &acc, in: txn)
                    try noteEveryDeltaCompletion(try typoDeltaTerms(partial, in: txn), partial: partial, into: &acc, in: txn)
                }
            }
        }
        let entriesFull = acc.entries.limit == 0 || acc.entries.isFull
        return entriesFull && (!wantsCompletions || acc.completions.count >= completionLimit)
    }

    /// The delta's terms that match `partial` with typos (each listed: for the paths that read
    /// every match).
    private func typoDeltaTerms(_ partial: QueryWord, in txn: borrowing ReadTransaction) throws -> TermList {
        try generation.deltaTerms(matching: partial, namesOnly: true, in: txn).filter { $0.distance > 0 }
    }

    /// The distinct distances of both lists, ascending: at most the budget plus one of them, so
    /// kept by insertion in one small array (a set of them, an array to sort and the lists'
    /// concatenation were four allocations on every keystroke; hashing the distances of a typo'd
    /// word's thousands of terms was a twentieth of "Saint-Maur").
    static func distinctLevels(_ a: some Sequence<Int>, _ b: some Sequence<Int>) -> [Int] {
        var levels: [Int] = []
        for level in a where !levels.contains(level) { levels.append(level) }
        for level in b where !levels.contains(level) { levels.append(level) }
        levels.sort()
        return levels
    }

    /// Postings of the words at distance 0 past which a farther word's postings are tested
    /// against them through the forward index rather than a bitmap of them (a bitmap of fewer
    /// costs less than a dozen microseconds to build).
    static let forwardLevelPostings = 4096

    /// Documents tested for a word at distance 0 through the forward index (for tests: a path
    /// only its speed would otherwise show).
    static let levelTestsByForward = Atomic<Int>(0)

    /// Words at distance 0 up to which their postings are counted one by one, to tell whether
    /// their bitmaps are kept.
    static let keptLevelTerms = 16

    /// A forward-index test (a chunk look-up, then its ordinals decoded) costs about as much as
    /// this many postings set in a bitmap.
    static let postingsPerForwardTest = 32

    /// The distinct distances of one list, ascending (see ``distinctLevels(_:_:)``).
    static func distinctLevels(_ a: some Sequence<Int>) -> [Int] {
        distinctLevels(a, EmptyCollection())
    }

    /// Completions of a partial word that is the whole query. An entry's typos are the smallest
    /// distance of its words (its *level*), so a word's best entry is its posting with the smallest
    /// (level, document number) — base numbers being static rank order. Distances are taken in
    /// turn and stop once `limit` words are known (a farther word cannot rank before them). At
    /// distance 0 the best is simply the first live posting; farther words scan their postings
    /// until an entry of level 0 turns up, testing levels against the (lazily built) sorted
    /// documents of nearer words. Only the first `limit` best entries are read.
    /// With `deltaListed`, the delta's words at distance 0 are the caller's (``noteDeltaCompletions``),
    /// and `terms` lacks the delta's own terms at distance 0: a delta entry's level is then taken
    /// from its own words, as ``completeFromRegions`` takes it, not from the terms' postings.
    private func completeFromPostings(_ terms: TermList, partial: QueryWord, limit: Int, hasDelta: Bool,
                                      deltaListed: Bool, into acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws {
        var word = partial
        let levels = Self.distinctLevels(terms.distances)
        // The documents of each nearer level, as bitmaps: a farther word's postings are tested
        // against them one by one until a level-0 entry turns up, often to the end of the list
        // (most words one edit from "grab" are in no title with a "grab…" word). A binary search
        // and a dictionary look-up per posting were nine tenths of "grab" on the synthetic 1M
        // catalog (1.1 ms); a bit test is a load.
        var levelDocuments: [DocumentBitmap?] = Array(repeating: nil, count: (levels.last ?? 0) + 1)
        // Level 0 — a name word starting with the typed word — is a range of name ordinals, so
        // while its words have many postings a document is tested through the forward index, a
        // few loads, instead: "cama" on the synthetic 1M catalog built the bitmap of the half a
        // million "camakee" documents on every keystroke (0.45 ms of 0.5) to test a few dozen
        // postings of farther words. The tests are bounded by the bitmap's own cost (a few
        // nanoseconds a posting against some tens a test): past it, the bitmap is built after all.
        var forward = levels.count > 1 ? generation.forwardReader() : nil
        var forwardTestsLeft = 0
        var zeroOrdinals: Range<UInt32>?
        // Level 0 is every document with a name word starting with the typed word: a common
        // prefix's documents are kept as a bitmap per read snapshot once built (``TermBitmaps``, the
        // same one the general plan narrows by), so a prefix that recurs ("cama" in every session
        // that types "Camakee") costs neither a bitmap nor tests. Base numbers are all the tests
        // ask about, and below the base it holds exactly the bitmap built below.
        if levels.count > 1, levels.first == 0, let kept = generation.cachedPrefixBitmap(partial.bytes, in: txn) {
            levelDocuments[0] = kept
            PartialWordPlan.keptLevelBitmaps.add(1, ordering: .relaxed)
        }
        if forward != nil, levels.first == 0, levelDocuments[0] == nil {
            // Counted in full (a varint of each word's list; the bitmap would read the lists):
            // the tests' budget is in proportion. Not when nearly all of them are of words whose
            // bitmaps are kept (``TermBitmaps``): the bitmap then costs an OR or two after the
            // first time ("Kath" on the synthetic 1M catalog tested 1,181 postings of its words one
            // edit away for "kathutromtoung" through the forward index, 0.16 ms).
            let zeroTerms = terms.atDistance(0)
            let (postings, kept) = zeroTerms.count <= Self.keptLevelTerms
                ? try generation.postingCounts(of: zeroTerms.terms, in: txn)
                : (try generation.postingCount(of: zeroTerms.terms, in: txn), 0)
            if postings > Self.forwardLevelPostings, kept * 10 < postings * 9,
               let range = try generation.nameOrdinals(withPrefix: partial.bytes, in: txn) {
                zeroOrdinals = range
                forwardTestsLeft = postings / Self.postingsPerForwardTest
            }
        }
        func level(of doc: UInt32, below distance: Int) throws -> Int {
            for level in levels where level < distance {
                if level == 0, levelDocuments[0] == nil, let zeroOrdinals, forwardTestsLeft > 0,
                   let has = try forward!.hasOrdinal(in: zeroOrdinals, doc, txn) {
                    forwardTestsLeft -= 1
                    Self.levelTestsByForward.add(1, ordering: .relaxed)
                    if has { return 0 }
                    continue
                }
                if levelDocuments[level] == nil {
                    // Level 0 of a common prefix: built once and kept (see above).
                    if level == 0, let node = try generation.heavyNode(partial.bytes, in: txn),
                       let kept = try generation.keptPrefixBitmap(partial.bytes, postings: node.postings, in: txn) {
                        levelDocuments[0] = kept
                        PartialWordPlan.keptLevelBitmaps.add(1, ordering: .relaxed)
                    } else {
                        // Base documents only: only base postings are tested (the delta's are verified below).
                        levelDocuments[level] = try generation.baseNameDocumentBitmap(of: terms.atDistance(level).terms,
                                                                                      in: txn)
                    }
                }
                if levelDocuments[level]!.contains(doc) { return level }
            }
            return distance
        }
        var known = 0
        for distance in levels where known < limit {
            let levelTerms = terms.atDistance(distance)
            var bests: [(typos: Int, doc: UInt32, term: ArraySlice<UInt8>)] = []
            for (term, _) in levelTerms {
                guard let value = try txn.get(generation.schema.terms, term) else { continue }
                let offers = try generation.completionOffers(of: term, in: txn)
                var cursor = try PostingCursor(value)
                var best: (typos: Int, doc: UInt32)?
                while let doc = cursor.current {
                    if !(try deleted?.contains(doc, in: txn) ?? false), try offers.offers(doc, in: generation, txn) {
                        let typos = distance == 0 ? 0 : try level(of: doc, below: distance)
                        if best == nil || typos < best!.typos { best = (typos, doc) }
                        if typos == 0 { break }
                    }
                    try cursor.advance()
                }
                if let best { bests.append((best.typos, best.doc, term)) }
            }
            bests.sort { a, b in
                if a.typos != b.typos { return a.typos < b.typos }
                if a.doc != b.doc { return a.doc < b.doc }
                return a.term.lexicographicallyPrecedes(b.term)
            }
            for item in bests.prefix(limit) {
                guard let doc = try acc.document(item.doc, from: generation, in: txn) else { continue }
                acc.noteCompletion(item.term, distance: distance, key: Self.completionKey(doc, typos: item.typos), docnum: item.doc)
            }
            if hasDelta && !(deltaListed && distance == 0) {
                for (term, _) in levelTerms {
                    var docs: [UInt32] = []
                    try generation.appendDeltaPostings(of: term, includeDescription: false, to: &docs, in: txn)
                    for docnum in docs {
                        guard let doc = try generation.document(docnum, in: txn), doc.offersCompletion(term) else { continue }
                        let typos = distance == 0 ? 0 : min(Self.bestNameDistance(&word, doc) ?? distance, distance)
                        acc.noteCompletion(term, distance: distance, key: Self.completionKey(doc, typos: typos), docnum: docnum)
                    }
                }
            }
            known = acc.completions.count
        }
    }
}
