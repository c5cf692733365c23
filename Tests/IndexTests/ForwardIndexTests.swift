import Catalog
import Foundation
@testable import Index
import Storage
import TestSupport
import XCTest

/// The forward index (``ForwardIndex``): each base document's name words as ordinals, and the
/// ordinal range of a prefix. Checked against the documents themselves, across chunk boundaries,
/// and by answers: the general plan with it answers as without it and as the reference.
final class ForwardIndexTests: XCTestCase {
    /// 400 random entries over a vocabulary of 40 words, in a shard with small heavy-node lists.
    private static func randomShard(seed: UInt64) throws -> (vocabulary: [String], fixture: ExactnessTests.ShardFixture) {
        var rng = SeededGenerator(seed: seed)
        var catalog = RandomCatalog(vocabularySize: 40, rng: &rng)
        let entries = catalog.randomEntries(400, &rng)
        return (catalog.vocabulary, try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(listSize: 4, heavyThreshold: 4)))
    }

    /// For every base document and many prefixes: the document has an ordinal in the prefix's
    /// range exactly when one of its name words (title and alias words, as stored) starts with the
    /// prefix; and its ordinals are as many as its distinct name words.
    func testAPrefixRangeFindsExactlyTheDocumentsWithAWordUnderIt() throws {
        let (vocabulary, fixture) = try Self.randomShard(seed: 0xF0E3_0001)
        let generation = try fixture.shard.current()
        var prefixes = Set<[UInt8]>()
        for word in vocabulary {
            let bytes = Array(word.lowercased().utf8)
            for length in 1...bytes.count { prefixes.insert(Array(bytes.prefix(length))) }
            prefixes.insert(bytes + [0x61])
        }
        prefixes.formUnion([[0x7A, 0x7A, 0x7A], [0x02], [0xC3], Array("ø".utf8)])
        var checked = 0, hits = 0
        try generation.environment.read { txn in
            var reader = try XCTUnwrap(generation.forwardReader())
            for prefix in prefixes.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let range = try XCTUnwrap(try generation.nameOrdinals(withPrefix: prefix, in: txn))
                for docnum in 0..<generation.baseCount {
                    let doc = try XCTUnwrap(try generation.document(docnum, in: txn))
                    let words = Array(WordList(bytes: doc.sortTitle)) + Array(WordList(bytes: doc.aliasWords))
                    let expected = words.contains { $0.starts(with: prefix) }
                    XCTAssertEqual(try reader.hasOrdinal(in: range, docnum, txn), expected,
                                   "document \(docnum), prefix \(String(decoding: prefix, as: UTF8.self))")
                    checked += 1
                    if expected { hits += 1 }
                }
            }
            for docnum in 0..<generation.baseCount {
                let doc = try XCTUnwrap(try generation.document(docnum, in: txn))
                let words = Set((Array(WordList(bytes: doc.sortTitle)) + Array(WordList(bytes: doc.aliasWords))).map { Array($0) })
                var ordinals: [UInt32] = []
                XCTAssertTrue(try reader.forEachOrdinal(docnum, txn) { ordinals.append($0) })
                XCTAssertEqual(ordinals.count, words.count, "document \(docnum)")
                XCTAssertEqual(ordinals, ordinals.sorted(), "ascending")
                XCTAssertEqual(Set(ordinals).count, ordinals.count, "distinct")
                for word in words {
                    let ordinal = try XCTUnwrap(try generation.nameOrdinal(of: Bytes.withView(of: word) { $0 }, in: txn))
                    XCTAssertTrue(ordinals.contains(ordinal))
                }
            }
            XCTAssertNil(try reader.hasOrdinal(in: 0..<100, generation.baseCount, txn), "past the base: not listed")
        }
        XCTAssertGreaterThan(hits, 1000)
        XCTAssertLessThan(hits, checked / 2)
    }

    /// A typo'd word's distance to a base document read from its forward list
    /// (``OrdinalDistances``: complete words by ``WordOrdinals``, a partial word by its walk's
    /// regions as ordinal ranges) equals the word's automaton over the document's title and alias
    /// words (``SuggestContext/bestNameDistance(_:_:)``), for every document and many words at
    /// budgets 1 and 2, matching or not.
    func testOrdinalDistancesEqualTheAutomataOverTheWords() throws {
        let (vocabulary, fixture) = try Self.randomShard(seed: 0xF0E3_0004)
        let generation = try fixture.shard.current()
        var texts = Set<String>()
        for word in vocabulary.map({ $0.lowercased() }) where word.count >= 4 {
            texts.insert(word)
            texts.insert(String(word.dropLast()))                      // a prefix
            texts.insert(String(word.dropFirst()))                     // a deletion up front
            texts.insert(String(word.prefix(2)) + "x" + String(word.dropFirst(3)))  // a substitution
            texts.insert(word + "qq")                                  // two insertions
            texts.insert(word + word)                                  // long: two edits allowed
            texts.insert(String((word + word).dropFirst(2)))
        }
        texts.formUnion(["zzzzzz", "abcdefgh"])
        var compared = 0, matched = 0
        try generation.environment.read { txn in
            var reader = try XCTUnwrap(generation.forwardReader())
            for text in texts.sorted() {
                do {
                    var complete = QueryWord(text, isPartial: false, typos: .auto)
                    var partial = QueryWord(text, isPartial: true, typos: .auto)
                    guard complete.budget > 0 else { continue }
                    let ordinals = try XCTUnwrap(try generation.wordOrdinals(complete, in: txn), text)
                    let ranges = try XCTUnwrap(try generation.nameOrdinalRanges(ofPartial: partial, atMost: .max, in: txn), text)
                    let distances = OrdinalDistances(words: [ordinals], partial: ranges)
                    for docnum in 0..<generation.baseCount {
                        let doc = try XCTUnwrap(try generation.document(docnum, in: txn))
                        var read: [Int8] = [OrdinalDistances.none]
                        var readPartial = OrdinalDistances.none
                        XCTAssertTrue(try distances.read(docnum, &reader, txn, complete: &read, partial: &readPartial))
                        let expected = SuggestContext.bestNameDistance(&complete, doc)
                        let expectedPartial = SuggestContext.bestNameDistance(&partial, doc)
                        XCTAssertEqual(read[0] >= 0 ? Int(read[0]) : nil, expected, "\(text) complete, document \(docnum)")
                        XCTAssertEqual(readPartial >= 0 ? Int(readPartial) : nil, expectedPartial, "\(text) partial, document \(docnum)")
                        compared += 1
                        if expected != nil { matched += 1 }
                    }
                }
            }
        }
        XCTAssertGreaterThan(matched, 500)
        XCTAssertLessThan(matched, compared / 2)
        XCTAssertTrue(texts.contains { QueryWord($0, isPartial: false, typos: .auto).budget == 2 }, "two-edit words are compared")
    }

    /// Chunks written by ``ForwardIndex/encodeChunk`` and read by the reader, in and across chunks,
    /// in any order (the reader keeps one chunk), with empty lists and multi-byte varints.
    func testChunksReadBackAcrossBoundaries() throws {
        let directory = TemporaryDirectory()
        let environment = try Environment(path: directory.path)
        let database = try environment.database(named: "forward", create: true)
        var rng = SeededGenerator(seed: 0xF0E3_0002)
        let documents = ForwardIndex.chunkSize + 300
        var lists: [[UInt32]] = []
        for _ in 0..<documents {
            let count = rng.int(0...6)
            lists.append(Set((0..<count).map { _ in UInt32(rng.chance(0.2) ? rng.int(0...3_000_000) : rng.int(0...200)) }).sorted())
        }
        try environment.write { txn in
            var chunk = 0
            while chunk * ForwardIndex.chunkSize < documents {
                let first = chunk * ForwardIndex.chunkSize
                var writer = ByteWriter()
                ForwardIndex.encodeChunk(count: min(ForwardIndex.chunkSize, documents - first), into: &writer) { lists[first + $0][...] }
                try txn.put(database, UInt32(chunk), writer.bytes)
                chunk += 1
            }
        }
        try environment.read { txn in
            var reader = ForwardIndex.Reader(database: database)
            var order = Array(0..<documents).filter { _ in rng.chance(0.05) }
            order += [ForwardIndex.chunkSize - 1, ForwardIndex.chunkSize, 0, documents - 1, ForwardIndex.chunkSize + 1, 3]
            for docnum in order {
                var read: [UInt32] = []
                XCTAssertTrue(try reader.forEachOrdinal(UInt32(docnum), txn) { read.append($0) })
                XCTAssertEqual(read, lists[docnum], "document \(docnum)")
                let low = UInt32(rng.int(0...250)), high = low + UInt32(rng.int(0...40))
                XCTAssertEqual(try reader.hasOrdinal(in: low..<high, UInt32(docnum), txn), lists[docnum].contains { (low..<high).contains($0) })
                let seen = lists[docnum].filter { _ in rng.chance(0.5) }
                XCTAssertEqual(try reader.hasOrdinal(in: low..<high, notIn: seen, UInt32(docnum), txn),
                               lists[docnum].contains { (low..<high).contains($0) && !seen.contains($0) })
            }
            XCTAssertNil(try reader.hasOrdinal(in: 0..<10, UInt32(documents), txn), "past the last document")
            XCTAssertNil(try reader.hasOrdinal(in: 0..<10, UInt32(3 * ForwardIndex.chunkSize), txn), "no such chunk")
        }
    }

    /// A damaged chunk gives an error or "not listed", never a crash: a table that does not fit
    /// is as if the chunk listed nothing, an offset outside the chunk is an error, and a list's
    /// well-formed start still answers.
    func testADamagedChunkIsAnErrorNotACrash() throws {
        let directory = TemporaryDirectory()
        let environment = try Environment(path: directory.path)
        let database = try environment.database(named: "forward", create: true)
        var writer = ByteWriter()
        ForwardIndex.encodeChunk(count: 3, into: &writer) { [[1, 5], [2], [300, 70_000]][$0][...] }
        let good = writer.bytes
        var bigCount = good
        bigCount[0] = 0xFF; bigCount[1] = 0xFF
        var wildOffset = good
        wildOffset[8] = 0xF0  // the end of document 0's list, the start of document 1's
        var unterminated = good
        unterminated[unterminated.count - 1] |= 0x80
        // Documents 0, 1, 2 and 3 (never listed): "nil" not listed, "yes", or "error".
        let cases: [(String, [UInt8], [String])] = [
            ("empty", [], ["nil", "nil", "nil", "nil"]),
            ("shorter than a header", [1, 0, 0], ["nil", "nil", "nil", "nil"]),
            ("table cut", Array(good.prefix(9)), ["nil", "nil", "nil", "nil"]),
            ("lists cut", Array(good.dropLast(2)), ["yes", "yes", "error", "nil"]),
            ("count too big for the value", bigCount, ["nil", "nil", "nil", "nil"]),
            ("offset past the end", wildOffset, ["error", "error", "yes", "nil"]),
            ("last varint unterminated", unterminated, ["yes", "yes", "yes", "nil"]),
            ("intact", good, ["yes", "yes", "yes", "nil"]),
        ]
        for (name, value, expected) in cases {
            try environment.write { txn in try txn.put(database, UInt32(0), value) }
            try environment.read { txn in
                var reader = ForwardIndex.Reader(database: database)
                for docnum in 0..<4 {
                    var outcome: String
                    do {
                        outcome = try reader.hasOrdinal(in: 0..<100_000, UInt32(docnum), txn).map { $0 ? "yes" : "no" } ?? "nil"
                    } catch is IndexError {
                        outcome = "error"
                    }
                    XCTAssertEqual(outcome, expected[docnum], "\(name), document \(docnum)")
                }
            }
        }
    }

    /// The general plan over thousands of candidates, with and without the forward index, typos
    /// on and off, fresh and after updates: the same answers, and the reference's; completions
    /// through the forward index taken often.
    func testTheGeneralPlanAnswersAsWithoutTheForwardIndex() throws {
        var rng = SeededGenerator(seed: 0xF0E3_0003)
        var entries = GeneralPlanTests.makeEntries(&rng)
        // Few candidates ("zorro": about 100) against the catalog, and more words under "pre" than
        // the rank walk finds soon: the forward walk's case (``completeWithinByForward``).
        let family = ["pre", "prea", "prequ", "preto", "prel", "presto", "preu", "pretl", "pres", "preqa", "prer", "preoi", "prest", "preal"]
        for n in 0..<400 {
            let word = rng.pick(family)
            let title = rng.chance(0.25) ? (rng.chance(0.5) ? "zorro \(word) thou" : "\(word) \(rng.pick(GeneralPlanTests.filler)) zorro")
                                         : "\(word) \(rng.pick(GeneralPlanTests.filler))"
            entries.append(CatalogEntry(id: "z\(n)", title: title, categories: ["c\(n % 3)"], weight: UInt64(rng.chance(0.3) ? 50 : rng.int(1...9_000)),
                                        aliases: rng.chance(0.1) ? ["the \(word) zorro"] : []))
        }
        var reference = ReferenceIndex(entries: entries)
        var shards: [(GenerationFormat, Shard, TemporaryDirectory)] = []
        for format in [GenerationFormat.current, .beforeForwardIndex] {
            let directory = TemporaryDirectory()
            let shard = try Shard(directory: directory.path)
            let info = try shard.buildGeneration(from: entries, parameters: IndexParameters(), number: nil, label: nil, format: format)
            try shard.activate(generation: info.number)
            XCTAssertEqual(try shard.current().schema.forward != nil, format.forwardIndex)
            shards.append((format, shard, directory))
        }
        var texts: [String] = []
        for word in ["stoucriagou", "ploucria", "camakee", "bukorga"] {
            for length in [1, 2, 4] { texts.append("thou " + word.prefix(length)) }
        }
        texts += ["thom s", "camakee c", "camakee thou s", "thou thom st", "adria pl"]
        // A rare complete word and many words under the typed prefix: completions come from the
        // walk through the forward index (``SuggestContext/completeWithinByForward``).
        texts += ["zorro pre", "zorro pr", "zorro p", "zorro prequ", "zorro thou pre", "pre zorro pr"]
        // With typos, the candidates with a word under the exact partial word, tested through the
        // forward index (``Generation/candidatesByForward``): the passes' first list.
        texts += ["zorro pres", "zorro prea", "zorro thou pret", "zorro prel"]
        func check(_ phase: String) {
            let walks = SuggestContext.forwardCompletionWalks.load(ordering: .relaxed)
            let tested = Generation.candidatesTestedByForward.load(ordering: .relaxed)
            defer {
                XCTAssertGreaterThan(SuggestContext.forwardCompletionWalks.load(ordering: .relaxed), walks + 10, "\(phase): forward walks")
                XCTAssertGreaterThan(Generation.candidatesTestedByForward.load(ordering: .relaxed), tested + 4, "\(phase): forward tests")
            }
            for text in texts {
                for typos in [TypoMode.auto, .off] {
                    for limits in [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 1, categories: 0, completions: 8)] {
                        let request = SuggestRequest(text: text, limits: limits, typos: typos)
                        for (format, shard, _) in shards {
                            XCTAssertNil(suggestDiff(shard: shard, reference: reference, request: request),
                                         "\(phase), forward index \(format.forwardIndex): \"\(text)\" \(typos) \(limits)")
                        }
                    }
                }
            }
        }
        check("built")
        var updates: [CatalogEntry] = []
        for (n, word) in GeneralPlanTests.family.enumerated() {
            updates.append(CatalogEntry(id: "new\(n)", title: "thou \(word) bukorga", categories: ["c1"], weight: UInt64(300 + n * 900)))
        }
        let deletes = entries.filter { $0.title.contains("stou") || $0.title.contains("adria") }.sorted { $0.weight > $1.weight }.prefix(8).map(\.id)
        for (_, shard, _) in shards {
            _ = try shard.upsert(updates)
            _ = try shard.delete(ids: Array(deletes))
        }
        reference.upsert(updates)
        reference.delete(ids: Array(deletes))
        check("after updates")
    }

    /// A typo'd partial word after a common complete word, where the partial word matches too many
    /// words to narrow the candidates ("python3-libt" on Debian): the walk reads each candidate's
    /// distances from its forward list first, and leaves unread those no name word of which the
    /// partial word (or a typo'd complete word) matches. Here 220 titles have "pyth", a few of them
    /// a word within an edit of "libt", and the rest words far from it; against the reference,
    /// fresh and after updates, with and without a token.
    func testCandidatesTheForwardListRulesOutAreNotRead() throws {
        var rng = SeededGenerator(seed: 20261210)
        let near = ["libtool", "libtiff", "libxml", "litmus", "lbtree", "libt", "ibtex", "liberty"]
        let far = ["requests", "numpy", "django", "flask", "mypy", "scipy", "pandas", "sphinx", "yaml", "attrs"]
        var entries: [CatalogEntry] = []
        for n in 0..<2400 {
            var words = [rng.chance(0.09) ? (rng.chance(0.9) ? "pyth" : "pyht") : rng.pick(far)]
            words.append(rng.chance(0.15) ? rng.pick(near) : rng.pick(far))
            if rng.chance(0.3) { words.append(rng.pick(far)) }
            entries.append(GeneralPlanTests.entry("p\(n)", words, category: "c\(n % 3)", tiedWeight: 40,
                                                  aliases: rng.chance(0.05) ? ["\(rng.pick(near)) pyth"] : [], &rng))
        }
        var updates: [CatalogEntry] = []
        for n in 0..<6 {
            let weight: UInt64 = n % 2 == 0 ? UInt64(300_000 + n) : UInt64(3 + n)
            updates.append(CatalogEntry(id: "u\(n)", title: "pyth \(near[n]) \(far[n])", categories: ["c\(n % 3)"], weight: weight))
        }
        try GeneralPlanTests.compareFreshAndUpdated(
            entries, texts: ["pyth libt", "pyth libto", "pyth litm", "pyth lbtr", "pyht libt", "pyth liber", "pyth flsk"],
            tokens: [[], [.category("c1")]],
            limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 2, categories: 0, completions: 8)],
            counting: SuggestContext.candidatesRejectedByForwardDistances, moreThan: 150, "candidates ruled out unread",
            upserting: updates, deleting: entries.filter { $0.title.contains("pyth") && $0.title.contains("lib") }.prefix(4).map(\.id))
    }

    /// A typo'd partial word with a thousand words, few of them beside the complete word: the rank
    /// walk notes the completions, testing each candidate's forward list, instead of looking up
    /// every word's postings (``SuggestContext/walkCompletesForLess(candidates:words:postings:)``,
    /// "New Terr" on cities). Here 400 titles have "nueva"; 1,200 words start with "bqz", each in
    /// two or three titles, a few of them beside "nueva". No heavy nodes, so that the words are
    /// listed (a heavy region's postings would be counted first, and many of them leave the words
    /// to the walk anyway). Against the reference, fresh and after updates, with and without a token.
    func testTheWalkNotesTypoCompletionsWhenWordsOutnumberCandidates() throws {
        var rng = SeededGenerator(seed: 20261211)
        let letters = Array("abcdefghijklmnopqrstuvwxyz").map(String.init)
        var words = Set<String>()
        while words.count < 1200 { words.insert("bqz" + (0..<rng.int(2...4)).map { _ in rng.pick(letters) }.joined()) }
        let bqz = words.sorted()
        let filler = ["harbor", "mill", "creek", "ridge", "falls", "grove"]
        var titles: [[String]] = []
        for word in bqz {
            for _ in 0..<rng.int(2...3) { titles.append([word, rng.pick(filler)]) }
        }
        for _ in 0..<9000 { titles.append([rng.pick(filler), rng.pick(filler)]) }
        for n in 0..<400 { titles.append(["nueva", n % 20 == 0 ? rng.pick(bqz) : rng.pick(filler)]) }
        titles.shuffle(using: &rng)
        let entries = titles.enumerated().map { n, words in
            GeneralPlanTests.entry("w\(n)", words, category: "c\(n % 3)", tiedWeight: 30, aliases: [], &rng)
        }
        var updates: [CatalogEntry] = []
        for n in 0..<6 {
            let weight: UInt64 = n % 2 == 0 ? UInt64(300_000 + n) : UInt64(2 + n)
            updates.append(CatalogEntry(id: "u\(n)", title: "nueva \(bqz[n * 97])", categories: ["c\(n % 3)"], weight: weight))
        }
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters(heavyThreshold: 1_000_000))
        var reference = ReferenceIndex(entries: entries)
        let texts = ["nueva bqzv", "nueva bqza", "nueva bqzvo", "nueva bqxa", "nuevo bqzv", "nueva bqz"]
        func check(_ phase: String) {
            GeneralPlanTests.compare(fixture, reference, texts: texts, tokens: [[], [.category("c1")]],
                                     limits: [SuggestLimits(entries: 10, categories: 3, completions: 5), SuggestLimits(entries: 2, categories: 0, completions: 8)],
                                     phase: phase, counting: SuggestContext.typoCompletionsByWalk, moreThan: 4, "typo completions by the walk")
        }
        check("built")
        try GeneralPlanTests.update(fixture, &reference, upserting: updates,
                                    deleting: entries.filter { $0.title.contains("nueva") && $0.title.contains("bqz") }.prefix(4).map(\.id))
        check("after updates")
    }
}
