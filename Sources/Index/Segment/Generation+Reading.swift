import Storage
import Synchronization

/// Reads shared by suggest and search. Every method takes the read transaction it runs in; the
/// views it returns are valid until that transaction ends.
extension Generation {
    /// Live entries, from the generation's metadata (its own read transaction).
    func liveCount() throws -> Int {
        try environment.read { txn in Int(try Updater.readU64(txn.get(schema.meta, MetaKey.liveCount))) }
    }

    func document(_ docnum: UInt32, in txn: borrowing ReadTransaction) throws -> DocumentView? {
        let key = schema.documentKeys == .native ? docnum : docnum.bigEndian
        let record = try withUnsafeBytes(of: key) { try txn.get(schema.docs, keyBytes: $0) }
        guard let record else { return nil }
        return try DocumentView(docnum: docnum, record: record, keys: attributeKeys)
    }

    /// The weight of a document, read from the head of its record without decoding the rest (both
    /// record versions start with their version byte and the weight, ``DocumentRecord``); nil
    /// when it does not exist.
    func documentWeight(_ docnum: UInt32, in txn: borrowing ReadTransaction) throws -> UInt64? {
        let key = schema.documentKeys == .native ? docnum : docnum.bigEndian
        guard let record = try withUnsafeBytes(of: key, { try txn.get(schema.docs, keyBytes: $0) }) else { return nil }
        return try DocumentRecord.weight(record)
    }

    /// The deleted base documents, or nil when there are none (then no candidate needs the check).
    /// Read once per query.
    func deletedSet(in txn: borrowing ReadTransaction) throws -> DeletedSet? {
        let set = try DeletedSet(generation: self, in: txn)
        return set.count > 0 ? set : nil
    }

    func isDeleted(_ docnum: UInt32, in txn: borrowing ReadTransaction) throws -> Bool {
        guard docnum < baseCount else { return false }
        return try txn.get(schema.deleted, docnum) != nil
    }

    /// Appends the documents of one term, base and delta, to `docs` (not sorted, may repeat).
    func appendPostings(of term: some StorageKey, includeDescription: Bool, to docs: inout [UInt32],
                        in txn: borrowing ReadTransaction) throws {
        if let value = try txn.get(schema.terms, term) {
            try PostingListView(value).forEach(includeDescription: includeDescription) { doc, _ in docs.append(doc) }
        }
        try appendDeltaPostings(of: term, includeDescription: includeDescription, to: &docs, in: txn)
    }

    /// Appends the delta documents of one term (ascending); false, having appended `limit`, when
    /// it has more than `limit`.
    @discardableResult
    func appendDeltaPostings(of term: some StorageKey, includeDescription: Bool, to docs: inout [UInt32], atMost limit: Int = .max,
                             in txn: borrowing ReadTransaction) throws -> Bool {
        try txn.withCursor(schema.deltaTerms) { cursor in
            var appended = 0
            var entry = try cursor.seek(term)
            while let value = entry?.value {
                if value.count == 5, includeDescription || value[4] == 0 {
                    guard appended < limit else { return false }
                    docs.append(value.loadBigEndian(UInt32.self, at: 0))
                    appended += 1
                }
                entry = try cursor.nextDuplicate()
            }
            return true
        }
    }

    /// The postings of `terms` (base and delta; name postings, and description ones with
    /// `includeDescription`) summed, stopping as soon as the sum passes `limit` (then the number
    /// returned is over `limit`, not the whole sum): how a plan decides whether the words of a
    /// partial word are few enough to list, and which filter is cheapest. Terms for which
    /// `baseCounted` says true are counted in the delta only (their base postings are known).
    ///
    /// One cursor reads every term's posting list header, and one more the delta's, only when the
    /// delta has terms at all. Term walks list terms in byte order, so consecutive seeks mostly
    /// land on the leaf page the cursor is on, which LMDB checks before descending from the root:
    /// thousands of words of a typo'd partial word cost a fraction of as many `mdb_get`s.
    func postingCount<Terms: Sequence>(of terms: Terms, includeDescription: Bool = false, stoppingAfter limit: Int = .max,
                                       baseCounted: (Terms.Element) -> Bool = { _ in false },
                                       in txn: borrowing ReadTransaction) throws -> Int where Terms.Element: StorageKey {
        let hasDelta = try txn.count(schema.deltaTerms) > 0
        return try txn.withCursor(schema.terms) { base in
            try txn.withCursor(schema.deltaTerms) { delta in
                var total = 0
                for term in terms {
                    if !baseCounted(term), let value = try base.seek(term)?.value {
                        let list = try PostingListView(value)
                        total += list.nameCount + (includeDescription ? list.descriptionCount : 0)
                    }
                    if hasDelta, try delta.seek(term) != nil { total += try delta.duplicateCount() }
                    if total > limit { return total }
                }
                return total
            }
        }
    }

    /// The name postings of a typo'd partial word's `terms` (as ``terms(matching:in:)`` lists
    /// them: base and delta, in byte order), summed as ``postingCount(of:includeDescription:stoppingAfter:baseCounted:in:)``
    /// sums them, but a whole region of the walk (``nameRegions(matching:terms:in:)``) with a heavy
    /// trie node counts as the node's `postings`, the sum of its terms' name postings kept at build
    /// time: "libt" within one edit takes the 20,000 words under "lib" as one read, not 20,000 seeks.
    /// The sum is the same; only the reads differ. `heavy` is ``heavyRegionPostings(ofPartial:stoppingAfter:in:)``'s
    /// answer when the caller has it (complete, i.e. not stopped early).
    func namePostingCount(ofPartial word: QueryWord, terms: TermList,
                          heavy: (postings: Int, prefixes: [[UInt8]])? = nil, stoppingAfter limit: Int,
                          in txn: borrowing ReadTransaction) throws -> Int {
        let (heavyTotal, covered) = try heavy ?? heavyRegionPostings(ofPartial: word, stoppingAfter: limit, in: txn)
        if heavyTotal > limit { return heavyTotal }
        // Terms and covered prefixes both ascend, and a covered prefix's terms are one run of
        // `terms`: found by two binary searches, its terms' base postings are not even looked at
        // (iterating the 20,000 words under "lib" to test each against the covers was a fifth of
        // "python3-libt" on Debian). Their delta postings, if any, still count.
        var uncovered: [Range<Int>] = [], coveredRuns: [Range<Int>] = []
        var from = 0
        for prefix in covered {
            let lower = Self.firstIndex(in: terms, from: from) { !$0.lexicographicallyPrecedes(prefix) }
            let upper = Self.firstIndex(in: terms, from: lower) { !$0.starts(with: prefix) }
            if lower > from { uncovered.append(from..<lower) }
            coveredRuns.append(lower..<upper)
            from = upper
        }
        uncovered.append(from..<terms.count)
        var total = heavyTotal + (try postingCount(of: uncovered.lazy.flatMap { terms[$0].lazy.map(\.term) },
                                                   stoppingAfter: limit - heavyTotal, in: txn))
        if total <= limit, try txn.count(schema.deltaTerms) > 0 {
            total += try postingCount(of: coveredRuns.lazy.flatMap { terms[$0].lazy.map(\.term) }, stoppingAfter: limit - total,
                                      baseCounted: { _ in true }, in: txn)
        }
        return total
    }

    /// The first index from `start` whose term satisfies `isPast`, which is false then true along
    /// `terms` from `start` on (binary search); `terms.count` if none.
    private static func firstIndex(in terms: TermList, from start: Int,
                                   where isPast: (ArraySlice<UInt8>) -> Bool) -> Int {
        var low = start, high = terms.count
        while low < high {
            let mid = (low + high) / 2
            if isPast(terms[mid].term) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// About how many base name postings `regions` (a walk's, in byte order) hold, for choosing
    /// between two exact ways of reading them: a subtree with a heavy trie node counts as the
    /// node's `postings`, a light one (no node) as ``TrieParameters/heavyThreshold``, the most it
    /// can hold, and a single term as its list's. At most an upper bound, so a caller that reads
    /// postings when they are few errs towards its other way. One seek a region; the sum stops
    /// once past `limit`.
    func namePostingsBound(of regions: [TermRegion], stoppingAfter limit: Int, in txn: borrowing ReadTransaction) throws -> Int {
        var total = 0
        try txn.withCursor(schema.trie) { trie in
            for region in regions where total <= limit {
                if region.isSubtree {
                    if let value = try trie.seek(region.prefix)?.value {
                        total += try HeavyNode.postings(decoding: value)
                    } else {
                        total += parameters.heavyThreshold
                    }
                } else if let value = try txn.get(schema.terms, region.prefix) {
                    total += try PostingListView(value).nameCount
                }
            }
        }
        return total
    }

    /// The base name postings of the regions of a typo'd partial word's walk that have a heavy
    /// trie node (a lower bound of all its words' postings, found without listing a word), and
    /// those regions' prefixes in byte order; the sum stops once past `limit`.
    func heavyRegionPostings(ofPartial word: QueryWord, stoppingAfter limit: Int = .max,
                             in txn: borrowing ReadTransaction) throws -> (postings: Int, prefixes: [[UInt8]]) {
        var none: TermList? = nil
        let regions = try nameRegions(matching: word, terms: &none, in: txn)
        // Most regions of a two-edit walk are light (no node): one cursor over the trie, seeking
        // in byte order, finds that cheaply, and only a node's postings count is decoded.
        return try txn.withCursor(schema.trie) { cursor in
            var prefixes: [[UInt8]] = []
            var total = 0
            for region in regions where region.isSubtree {
                guard let value = try cursor.seek(region.prefix)?.value else { continue }
                prefixes.append(region.prefix)
                total += try HeavyNode.postings(decoding: value)
                if total > limit { break }
            }
            return (total, prefixes)
        }
    }

    /// How many postings a term has (base and delta), for choosing the cheapest driver.
    func postingCount(of term: [UInt8], includeDescription: Bool, in txn: borrowing ReadTransaction) throws -> Int {
        try postingCount(of: CollectionOfOne(term), includeDescription: includeDescription, in: txn)
    }

    /// The terms (base and delta) a query word matches, with their distances, in byte order.
    /// Base terms come from the packed trie (typos) or a key range (exact prefix), both already
    /// in order; delta terms, when there are any, are merged in.
    ///
    /// - Parameter namesOnly: only name words are wanted (suggest): description-only delta words
    ///   may be left out, so the delta's typo'd matches come from its trie (``DeltaTrie``) once built.
    func terms(matching word: QueryWord, namesOnly: Bool = false, in txn: borrowing ReadTransaction) throws -> TermList {
        if word.budget == 0 && !word.isPartial { return TermList(CollectionOfOne((word.bytes, 0))) }
        var base = TermList()
        if word.budget > 0 && word.isPartial {
            var listed: TermList? = TermList()
            _ = try nameRegions(matching: word, terms: &listed, in: txn)
            base = listed ?? TermList()
        } else if word.budget > 0 {
            let key = TermMatchCache.Key(word: word.scalars, budget: word.budget, prefixMode: false)
            base = try termMatches.value(key) {
                guard let trie = try txn.get(schema.termTrie, PackedTrie.key) else { return TermList() }
                // The word typed as a partial word a keystroke ago ("watthana", then "watthana "):
                // a word within the budget is within it of the word's prefixes too, so its regions
                // hold every match, and only they are walked.
                let partial = TermMatchCache.Key(word: word.scalars, budget: word.budget, prefixMode: true)
                if let regions = termRegions.cached(partial)?.regions {
                    return try PackedTrie.matches(trie, query: word.scalars, budget: word.budget, within: regions, fanout: rootFanout)
                }
                return try PackedTrie.matches(trie, query: word.scalars, budget: word.budget, prefixMode: word.isPartial,
                                              fanout: rootFanout)
            }
        } else {
            base = try txn.withCursor(schema.terms) { cursor in
                try TermWalk.terms(&cursor, withPrefix: word.bytes)
            }
        }
        guard try txn.count(schema.deltaTerms) > 0 else { return base }
        return TermList.merged(base, try deltaTerms(matching: word, namesOnly: namesOnly, in: txn))
    }

    /// What a partial word matches among the base segment's name words, as regions of the term
    /// trie (see ``PackedTrie/regions(_:automaton:)``): without typos, the one subtree of its bytes.
    /// With non-nil `terms`, the base terms it matches too (those of ``terms(matching:in:)``).
    /// Walks at two edits taken from the keystroke before's one-edit regions
    /// (``PackedTrie/regions(_:query:budget:oneEditRegions:terms:)``), for tests.
    static let twoEditStepsFromOneEdit = Atomic<Int>(0)

    /// Walks of the delta's trie started from the keystroke before's regions (at the same budget,
    /// or at one edit for the step to two), for tests.
    static let deltaWalksFromKeystrokeBefore = Atomic<Int>(0)

    /// Where a walk of ``regions(in:of:fanout:terms:kept:)`` began.
    private enum WalkStart { case root, keystrokeBefore, oneEditStep }

    /// A partial word's regions in `trie` (prefix mode), for the base's trie and the delta's
    /// alike: walked from the keystroke before's regions at the same budget when `kept` has them
    /// (they hold this one's), or, at the step to two edits (the eighth scalar), from its one-edit
    /// regions, which hold all but the first scalar's subtree of this walk; else from the root.
    /// `kept(budget)`: the regions kept for the word less its last scalar at that budget.
    private static func regions(in trie: Bytes, of word: QueryWord, fanout: RootFanout?, terms: inout TermList?,
                        kept: (_ budget: Int) -> [TermRegion]?) throws -> (regions: [TermRegion], start: WalkStart) {
        let previous = word.scalars.count > 1 ? kept(word.budget) : nil
        if previous == nil, word.budget >= 2, word.scalars.count > 1, let oneEdit = kept(1),
           let stepped = try PackedTrie.regions(trie, query: word.scalars, budget: word.budget, oneEditRegions: oneEdit, terms: &terms) {
            return (stepped, .oneEditStep)
        }
        let regions = try PackedTrie.regions(trie, query: word.scalars, budget: word.budget, prefixMode: true, previous: previous,
                                             fanout: fanout, terms: &terms)
        return (regions, previous == nil ? .root : .keystrokeBefore)
    }

    func nameRegions(matching word: QueryWord, terms: inout TermList?,
                     in txn: borrowing ReadTransaction) throws -> [TermRegion] {
        precondition(word.isPartial, "regions are for the word being typed")
        if word.budget == 0 {
            if terms != nil {
                terms = try txn.withCursor(schema.terms) { cursor in
                    try TermWalk.terms(&cursor, withPrefix: word.bytes)
                }
            }
            return [TermRegion(prefix: word.bytes, distance: 0, isSubtree: true)]
        }
        // One walk lists both, and the cache keeps both: the plans that need regions and those that
        // need terms (completions, the general plan's narrowing) then share one walk per keystroke.
        // Listing the terms costs more than finding the regions ("limb": 20,000 words under "lib"),
        // so a walk lists them only when asked, and a cached walk without them is redone once.
        let key = TermMatchCache.Key(word: word.scalars, budget: word.budget, prefixMode: true)
        let wantsTerms = terms != nil
        if let cached = termRegions.cached(key), !wantsTerms || cached.terms != nil {
            if wantsTerms { terms = cached.terms }
            return cached.regions
        }
        var found = TermRegions(regions: [], terms: wantsTerms ? TermList() : nil)
        if let trie = try txn.get(schema.termTrie, PackedTrie.key) {
            let walked = try Self.regions(in: trie, of: word, fanout: rootFanout, terms: &found.terms) { budget in
                termRegions.cached(TermMatchCache.Key(word: Array(word.scalars.dropLast()), budget: budget, prefixMode: true))?.regions
            }
            found.regions = walked.regions
            if walked.start == .oneEditStep { Self.twoEditStepsFromOneEdit.add(1, ordering: .relaxed) }
        }
        // A walk that listed its terms takes the place of one that did not (insert keeps the first).
        // Terms too many to keep ("terr" with a typo: every word under "ter"), its regions are kept
        // alone: they are small, and what the next keystroke's walk starts from.
        if wantsTerms {
            termRegions.replace(found, for: key)
            termRegions.insert(TermRegions(regions: found.regions, terms: nil), for: key)
        } else {
            termRegions.insert(found, for: key)
        }
        if wantsTerms { terms = found.terms }
        return found.regions
    }

    /// The words (base and delta, sorted, distinct) that start with `prefix`, or nil as soon as
    /// there are more than `limit` of them (so asking is cheap when the answer is "many").
    /// Each database's keys come sorted, so the two lists are merged, not hashed.
    ///
    /// The keys are counted before any is copied: short prefixes, asked on most keystrokes, have
    /// many words, and copying `limit` of them only to answer nil cost a third of "python3-r".
    ///
    /// The delta's part comes from its trie of name words (``DeltaTrie``) when that is built: a
    /// walk in memory where `delta_terms` is a B+tree step a key, description words included
    /// ("python3-fo" with a fifth of Debian re-weighted: a sixth of the keystroke).
    func prefixTerms(_ prefix: [UInt8], atMost limit: Int, in txn: borrowing ReadTransaction) throws -> [[UInt8]]? {
        var lists: [[[UInt8]]] = []
        for database in [schema.terms, schema.deltaTerms] {
            if database == schema.deltaTerms, try txn.count(database) > 0,
               let found = try deltaTrieMatches(String(decoding: prefix, as: UTF8.self).unicodeScalars.map(\.value),
                                                budget: 0, prefixMode: true, in: txn) {
                if found.count > limit { return nil }
                lists.append(found.terms.map { Array($0) })
                continue
            }
            var keys: [[UInt8]] = []
            let complete = try txn.withCursor(database) { cursor -> Bool in
                var count = 0
                var entry = try cursor.seek(atLeast: prefix)
                while let key = entry?.key, key.hasPrefix(prefix) {
                    count += 1
                    if count > limit { return false }
                    entry = try cursor.nextKey()
                }
                guard count > 0 else { return true }
                keys.reserveCapacity(count)
                entry = try cursor.seek(atLeast: prefix)
                while let key = entry?.key, key.hasPrefix(prefix) {
                    keys.append(Array(key))
                    entry = try cursor.nextKey()
                }
                return true
            }
            if !complete { return nil }
            lists.append(keys)
        }
        guard !lists[1].isEmpty else { return lists[0] }
        let merged = TermList.merged(TermList(lists[0].lazy.map { ($0, 0) }), TermList(lists[1].lazy.map { ($0, 0) })).map { Array($0.term) }
        return merged.count > limit ? nil : merged
    }

    /// The delta's name words within `budget` of `query` (``PackedTrie/matches(_:query:budget:prefixMode:fanout:)``),
    /// from its trie (``DeltaTrie``); nil while that is not built. Kept by snapshot: a complete
    /// word is matched again on every keystroke after it.
    private func deltaTrieMatches(_ query: [UInt32], budget: Int, prefixMode: Bool,
                                  in txn: borrowing ReadTransaction) throws -> TermList? {
        guard let trie = try deltaTrie.trie(of: schema, environment: environment, in: txn) else { return nil }
        let key = TermMatchCache.SnapshotKey(snapshot: txn.snapshotID, word: TermMatchCache.Key(word: query, budget: budget, prefixMode: prefixMode))
        return try deltaMatchesCache.value(key) {
            try Bytes.withView(of: trie) { try PackedTrie.matches($0, query: query, budget: budget, prefixMode: prefixMode) }
        }
    }

    /// The delta segment's terms a query word matches, in byte order.
    ///
    /// - Parameter namesOnly: only name words are wanted. A typo'd word then walks the delta's
    ///   trie of name words when it is built (``DeltaTrie``), in memory, instead of `delta_terms`
    ///   with a cursor, a B+tree step for every key near the word: with a fifth of Debian
    ///   re-weighted, that walk was 1.2 ms of every multi-word keystroke with typos
    ///   ("golang-github-chzyer-readline-": 180 µs fresh, 1.5 ms updated).
    func deltaTerms(matching word: QueryWord, namesOnly: Bool = false, in txn: borrowing ReadTransaction) throws -> TermList {
        if namesOnly, word.budget > 0,
           let found = try deltaTrieMatches(word.scalars, budget: word.budget, prefixMode: word.isPartial, in: txn) {
            return found
        }
        return try txn.withCursor(schema.deltaTerms) { cursor in
            if word.budget == 0 {
                return try TermWalk.terms(&cursor, withPrefix: word.bytes)
            }
            var automaton = word.termAutomaton
            return try TermWalk.matches(&cursor, automaton: &automaton)
        }
    }

    /// The delta's words that the partial `word` (with typos) matches, as regions: each prefix
    /// below which every such word has one distance as one subtree region, other matching words
    /// alone. From the walk of the delta's trie (``DeltaTrie``), or while that is being built, of
    /// `delta_terms` (``TermWalk/regions(_:automaton:)``; description words too, whose prefixes
    /// list no document). A subtree's documents are a prefix list of ``DeltaLists``, read
    /// best-first, where its words would each be a posting list to read whole.
    func deltaRegions(matching word: QueryWord, in txn: borrowing ReadTransaction) throws -> [TermRegion] {
        precondition(word.isPartial, "regions are for the word being typed")
        guard let trie = try deltaTrie.trie(of: schema, environment: environment, in: txn) else {
            return try txn.withCursor(schema.deltaTerms) { cursor in
                var automaton = word.termAutomaton
                return try TermWalk.regions(&cursor, automaton: &automaton)
            }
        }
        // Kept by snapshot and walked from the keystroke before, as the base's are
        // (``nameRegions(matching:terms:in:)``): a fifth of cities re-weighted, a walk of the
        // delta's trie from its root was a third of every typo'd keystroke.
        func key(_ scalars: [UInt32], budget: Int) -> TermMatchCache.SnapshotKey {
            TermMatchCache.SnapshotKey(snapshot: txn.snapshotID, word: TermMatchCache.Key(word: scalars, budget: budget, prefixMode: true))
        }
        if let cached = deltaRegionsCache.cached(key(word.scalars, budget: word.budget)) { return cached }
        var noTerms: TermList?
        let shorter = Array(word.scalars.dropLast())
        let walked = try Bytes.withView(of: trie) { trie in
            try Self.regions(in: trie, of: word, fanout: nil, terms: &noTerms) { deltaRegionsCache.cached(key(shorter, budget: $0)) }
        }
        if walked.start != .root { Self.deltaWalksFromKeystrokeBefore.add(1, ordering: .relaxed) }
        let regions = walked.regions
        deltaRegionsCache.insert(regions, for: key(word.scalars, budget: word.budget))
        return regions
    }

    /// Whether some name word (title or alias; base or delta) starts with `prefix`. Conservative:
    /// after 64 description-only words it answers true.
    func hasNameTerm(withPrefix prefix: [UInt8], in txn: borrowing ReadTransaction) throws -> Bool {
        let inBase = try txn.withCursor(schema.terms) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            var checked = 0
            while let (key, value) = entry, key.hasPrefix(prefix) {
                checked += 1
                if checked > 64 { return true }
                if try PostingListView(value).nameCount > 0 { return true }
                entry = try cursor.nextKey()
            }
            return false
        }
        if inBase { return true }
        return try txn.withCursor(schema.deltaTerms) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            var checked = 0
            while let (key, value) = entry, key.hasPrefix(prefix) {
                checked += 1
                if checked > 64 || (value.count == 5 && value[4] == 0) { return true }
                entry = try cursor.next()
            }
            return false
        }
    }

    /// The documents (base and delta; deleted base ones too) whose analysed title starts with
    /// `prefix`, in title order (not sorted by number: the caller sorts only what it reads); nil
    /// when there are more than `limit` of them, when the prefix is longer than a title key keeps,
    /// or in a generation without the `titles` index.
    /// Cost: one key range of the `titles` database, read until `limit`.
    func documents(withTitlePrefix prefix: [UInt8], atMost limit: Int, in txn: borrowing ReadTransaction) throws -> [UInt32]? {
        guard let titles = schema.titles, prefix.count <= TitleKey.maximumTitleBytes else { return nil }
        var docs: [UInt32] = []
        let complete = try txn.withCursor(titles) { cursor -> Bool in
            var entry = try cursor.seek(atLeast: prefix)
            while let key = entry?.key, key.hasPrefix(prefix) {
                docs.append(TitleKey.documentNumber(key))
                if docs.count > limit { return false }
                entry = try cursor.next()
            }
            return true
        }
        guard complete else { return nil }
        return docs
    }

    /// What to do after visiting a document of a title (``forEachDocument(withTitle:in:_:)``).
    enum TitleVisit {
        case next
        /// On to the first document numbered at least this.
        case skip(to: UInt32)
        case stop
    }

    /// Visits the documents whose analysed title may be `title`, by document number, as `body`
    /// says; false when this generation has no `titles` index (nothing is visited). A title
    /// longer than ``TitleKey/maximumTitleBytes`` is keyed by its cut, so then every title
    /// sharing the cut is visited and the caller compares the whole title. O(log n) to find the
    /// range (and per skip), then one cursor step a document.
    func forEachDocument(withTitle title: [UInt8], in txn: borrowing ReadTransaction,
                         _ body: (UInt32) throws -> TitleVisit) throws -> Bool {
        guard let titles = schema.titles else { return false }
        var prefix = Array(title.prefix(TitleKey.maximumTitleBytes))
        prefix.append(0x00)
        try txn.withCursor(titles) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let key = entry?.key, key.count == prefix.count + 4, key.hasPrefix(prefix) {
                switch try body(TitleKey.documentNumber(key)) {
                case .next: entry = try cursor.next()
                case .skip(let first): entry = try cursor.seek(atLeast: prefix + first.bigEndianBytes)
                case .stop: return
                }
            }
        }
        return true
    }

    /// The heavy trie node of a prefix, if the prefix is heavy.
    func heavyNode(_ prefix: [UInt8], in txn: borrowing ReadTransaction) throws -> HeavyNode? {
        guard let value = try txn.get(schema.trie, prefix) else { return nil }
        return try HeavyNode(decoding: value, prefix: prefix)
    }

    /// As ``heavyNode(_:in:)``, through a cursor on `trie` kept across many prefixes in key order.
    func heavyNode(_ prefix: [UInt8], through trie: inout Cursor) throws -> HeavyNode? {
        guard let value = try trie.seek(prefix)?.value else { return nil }
        return try HeavyNode(decoding: value, prefix: prefix)
    }

    /// Live entries carrying a token: a category, or a filterable attribute's value (every chip
    /// the generation has seen; 0 for others).
    func chipCount(_ token: SearchToken, in txn: borrowing ReadTransaction) throws -> Int {
        let value: Bytes?
        if token.kind.isCategory {
            // Keyed by the name's bytes: the string lends them (no array a chip).
            value = try txn.get(schema.categories, token.value)
        } else {
            guard schema.attributeValues != nil else { return 0 }
            let place = try schema.chipDatabases(token)
            value = try txn.get(place.counts, place.key)
        }
        guard let value, value.count == 8 else { return 0 }
        return Int(value.loadBigEndian(UInt64.self, at: 0))
    }

    /// Chips (categories, and values of filterable attributes) with a word the partial word
    /// matches, with the smallest distance. A walk with typos is kept per read snapshot
    /// (``categoryMatches``): it is made on every keystroke, and updates change the chip words.
    func categories(matching word: QueryWord, in txn: borrowing ReadTransaction) throws -> [SearchToken: Int] {
        guard word.budget > 0 else { return try walkChips(matching: word, in: txn) }
        let key = TermMatchCache.SnapshotKey(snapshot: txn.snapshotID,
                                             word: TermMatchCache.Key(word: word.scalars, budget: word.budget, prefixMode: word.isPartial))
        return try categoryMatches.value(key) { try walkChips(matching: word, in: txn) }
    }

    private func walkChips(matching word: QueryWord, in txn: borrowing ReadTransaction) throws -> [SearchToken: Int] {
        // Listed first, then hashed into a dictionary of the right size: grown from empty, it
        // rehashed every chip at each doubling (a one-letter word on a catalog of countries
        // and regions lists hundreds).
        var found: [(token: SearchToken, distance: Int)] = []
        found.reserveCapacity(16)
        let attributeWords = filterable.isEmpty ? nil : schema.attributeWords
        // A chip word's value: a category's name, or an attribute's key (`kind\0value`).
        func note(_ value: some Collection<UInt8>, _ distance: Int, isCategory: Bool) {
            if isCategory {
                found.append((SearchToken.category(String(decoding: value, as: UTF8.self)), distance))
            } else if let token = Schema.attributeToken(value) {
                found.append((token, distance))
            }
        }
        if word.budget > 0, let list = try chipWordList(attributeWords: attributeWords, in: txn) {
            list.forEachMatch(of: word) { note($0, $1, isCategory: $2) }
        } else {
            try walkWords(schema.categoryWords, matching: word, in: txn) { note($0, $1, isCategory: true) }
            if let attributeWords {
                try walkWords(attributeWords, matching: word, in: txn) { note($0, $1, isCategory: false) }
            }
        }
        var matches = [SearchToken: Int](minimumCapacity: found.count)
        for (token, distance) in found {
            // One look-up a chip: the smallest distance of its words.
            Self.lower(&matches[token, default: distance], to: distance)
        }
        return matches
    }

    /// The snapshot's chip words in memory (``ChipWordList``), built by this query if needed;
    /// nil when there are too many to hold (they are walked instead).
    private func chipWordList(attributeWords: Database?, in txn: borrowing ReadTransaction) throws -> ChipWordList? {
        if let list = chipWords.cached(in: txn) { return list }
        let size = try txn.count(schema.categoryWords) + (attributeWords.map { try txn.count($0) } ?? 0)
        guard size <= ChipWordList.inlineBuildLimit else { return nil }
        let categoryWords = schema.categoryWords
        return try chipWords.value(size: size, environment: environment, in: txn) { txn in
            try ChipWordList(categoryWords: categoryWords, attributeWords: attributeWords, in: txn)
        }
    }

    private static func lower(_ value: inout Int, to distance: Int) {
        if distance < value { value = distance }
    }

    /// Calls `body` with every value listed under a word of `database` that the word matches, and
    /// the word's distance.
    private func walkWords(_ database: Database, matching word: QueryWord, in txn: borrowing ReadTransaction,
                           _ body: (Bytes, Int) throws -> Void) throws {
        try txn.withCursor(database) { cursor in
            if word.budget == 0 {
                // Every value of every word with the prefix, in one run of the cursor (MDB_NEXT
                // visits a word's values, then the next word's): no list of the words, and no
                // second descent of the tree per word to reach its values.
                var entry = try cursor.seek(atLeast: word.bytes)
                while let (key, value) = entry, key.hasPrefix(word.bytes) {
                    try body(value, 0)
                    entry = try cursor.next()
                }
                return
            }
            var automaton = word.termAutomaton
            let words = try TermWalk.matches(&cursor, automaton: &automaton)
            for (term, distance) in words {
                var entry = try cursor.seek(term)
                while let value = entry?.value {
                    try body(value, distance)
                    entry = try cursor.nextDuplicate()
                }
            }
        }
    }
}

extension Generation {
    /// The base documents of a set of terms (name postings) as a bitmap: each posting sets its
    /// bit, with no list to build, merge or sort. For the membership tests of many base documents
    /// against a union of many terms (a lone partial word's completions from postings test every
    /// base posting of the farther words against the nearer words' documents).
    func baseNameDocumentBitmap(of terms: some Sequence<some StorageKey>, in txn: borrowing ReadTransaction) throws -> DocumentBitmap {
        let base = Int(baseCount)
        var bitmap = DocumentBitmap(spanning: base)
        try txn.withCursor(schema.terms) { cursor in
            for term in terms {
                guard let value = try cursor.seek(term)?.value else { continue }
                var postings = try PostingCursor(value)
                // A common word's bitmap is kept per snapshot (``TermBitmaps``): ORed, not decoded.
                if TermBitmaps.worthKeeping(postings: postings.left + 1, base: base) {
                    bitmap.formUnion(try keptNameBitmap(of: term, postings, in: txn))
                } else {
                    try bitmap.insert(&postings)
                }
            }
        }
        return bitmap
    }

    /// The name postings of `terms` (base and delta, as ``postingCount(of:includeDescription:in:)``
    /// counts them), and how many of them are of words whose bitmap is kept (``TermBitmaps``).
    func postingCounts(of terms: some Sequence<some StorageKey>, in txn: borrowing ReadTransaction) throws -> (all: Int, kept: Int) {
        var all = 0, kept = 0
        for term in terms {
            let count = try postingCount(of: CollectionOfOne(term), in: txn)
            all += count
            if TermBitmaps.worthKeeping(postings: count, base: Int(baseCount)) { kept += count }
        }
        return (all, kept)
    }

    /// The sorted, distinct documents of a set of terms (base and delta).
    ///
    /// Name postings only: each term's list is already sorted (base numbers ascending, then delta
    /// numbers, which are all larger), so a few lists are merged, O(n log k), instead of sorted.
    func documents(of terms: some Collection<some StorageKey>, includeDescription: Bool, in txn: borrowing ReadTransaction) throws -> [UInt32] {
        guard !includeDescription else {
            var docs: [UInt32] = []
            for term in terms { try appendPostings(of: term, includeDescription: true, to: &docs, in: txn) }
            sortUnique(&docs)
            return docs
        }
        var lists: [[UInt32]] = []
        lists.reserveCapacity(terms.count)
        // One cursor for the terms (in byte order when a walk lists them): a key on the page the
        // cursor stands on is found without descending the tree again.
        try txn.withCursor(schema.terms) { cursor in
            for term in terms {
                var docs: [UInt32] = []
                if let value = try cursor.seek(term)?.value { try PostingListView(value).appendNameDocuments(to: &docs) }
                try appendDeltaPostings(of: term, includeDescription: false, to: &docs, in: txn)
                if !docs.isEmpty { lists.append(docs) }
            }
        }
        // Many lists (a typo'd word can match thousands of words): pairwise merges, re-choosing
        // the two smallest each time, would cost O(k²). Their union is one sort of them all,
        // O(n log n), or, when the postings are dense among the document numbers, a bitmap of the
        // numbers: O(n + d/64) for d numbers.
        if lists.count > 32 {
            return unionOfMany(lists)
        }
        // Pairwise merges, smallest lists first, keep every list sorted and distinct.
        while lists.count > 1 {
            lists.sort { $0.count > $1.count }
            let a = lists.removeLast(), b = lists.removeLast()
            lists.append(union(a, b))
        }
        return lists.first ?? []
    }
}
