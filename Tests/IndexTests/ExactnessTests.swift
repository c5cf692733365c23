// Randomized exactness tests: the real index (`Shard`) must answer every suggest and search
// request exactly like the brute-force `ReferenceIndex`, which is written straight from
// Sources/Index/Semantics.md.
//
// Everything is seeded. A mismatch prints the seed, the catalog configuration, the request and
// a field-by-field diff; for catalogs built in one go it also shrinks the catalog to a minimal
// one that still disagrees and prints it as JSON lines.
//
// Environment:
//   TYPEAHEAD_SEED=<n>     base seed (decimal or 0x hex); each catalog derives its own from it
//   TYPEAHEAD_THOROUGH=1   about 8× more catalogs, queries and update batches
//   TYPEAHEAD_MINIMIZE=0   do not shrink failing catalogs

import Analysis
import Catalog
import Foundation
import Synchronization
@testable import Index
import XCTest
import TestSupport

final class ExactnessTests: XCTestCase {
    // MARK: - Configuration

    static let environment = ProcessInfo.processInfo.environment
    static let thorough = environment["TYPEAHEAD_THOROUGH"] == "1"
    static let minimize = environment["TYPEAHEAD_MINIMIZE"] != "0"

    static var baseSeed: UInt64 {
        guard let text = environment["TYPEAHEAD_SEED"] else { return 0x7E57_A11E }
        if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) ?? 0 }
        return UInt64(text) ?? 0
    }

    static func scaled(_ n: Int) -> Int { thorough ? n * 8 : n }

    struct Configuration {
        var size: Int
        var vocabulary: Int
        var listSize: Int
        var heavyThreshold: Int
        /// Entries from `SyntheticCatalog.randomEntries` (words over a, b, c, d, é, ö) instead
        /// of `RandomCatalog` (shared prefixes, NFC/NFD, Cyrillic, CJK, long words).
        var synthetic = false

        var parameters: IndexParameters { IndexParameters(listSize: listSize, heavyThreshold: heavyThreshold) }
        var label: String {
            "\(size) \(synthetic ? "SyntheticCatalog.randomEntries" : "RandomCatalog") entries, vocabulary \(vocabulary), "
                + "IndexParameters(listSize: \(listSize), heavyThreshold: \(heavyThreshold))"
        }
    }

    /// The catalog of a configuration, and a generator for queries and updates over it.
    static func makeCatalog(_ configuration: Configuration, seed: UInt64, rng: inout SeededGenerator)
        -> (entries: [CatalogEntry], generator: RandomCatalog) {
        var generator = RandomCatalog(vocabularySize: configuration.vocabulary, rng: &rng)
        guard configuration.synthetic else {
            return (generator.randomEntries(configuration.size, &rng), generator)
        }
        let entries = SyntheticCatalog.randomEntries(seed: seed, count: configuration.size,
                                                     vocabularySize: configuration.vocabulary)
        // Queries and updates over the same words and categories.
        var words: [String] = []
        var categories: [String] = []
        for entry in entries {
            for w in entry.title.split(separator: " ").map(String.init) where !words.contains(w) { words.append(w) }
            for c in entry.categories where !categories.contains(c) { categories.append(c) }
        }
        generator.vocabulary = words
        if !categories.isEmpty { generator.categories = categories }
        return (entries, generator)
    }

    /// Small trie parameters in most configurations so that truncated lists and heavy-node
    /// fallbacks happen on small catalogs; the defaults in some.
    static func configurations() -> [Configuration] {
        var list = [
            Configuration(size: 50, vocabulary: 20, listSize: 2, heavyThreshold: 2),
            Configuration(size: 120, vocabulary: 30, listSize: 3, heavyThreshold: 4),
            Configuration(size: 400, vocabulary: 40, listSize: 4, heavyThreshold: 8),
            Configuration(size: 250, vocabulary: 25, listSize: 32, heavyThreshold: 32),
            Configuration(size: 80, vocabulary: 40, listSize: 2, heavyThreshold: 8),
            Configuration(size: 300, vocabulary: 30, listSize: 32, heavyThreshold: 2),
            Configuration(size: 200, vocabulary: 30, listSize: 2, heavyThreshold: 4, synthetic: true),
            Configuration(size: 400, vocabulary: 40, listSize: 32, heavyThreshold: 32, synthetic: true),
        ]
        if thorough {
            var rng = SeededGenerator(seed: baseSeed ^ 0xC0FF_EE)
            for _ in 0..<32 {
                let defaults = rng.chance(0.25)
                list.append(Configuration(size: rng.int(50...400), vocabulary: rng.int(20...40),
                                          listSize: defaults ? 32 : rng.int(2...4),
                                          heavyThreshold: defaults ? 32 : rng.int(2...8),
                                          synthetic: rng.chance(0.3)))
            }
        }
        return list
    }

    // MARK: - Fixtures

    /// A shard in a fresh temporary directory, removed when the fixture goes away.
    final class ShardFixture {
        let directory: String
        let shard: Shard

        init(entries: [CatalogEntry]?, parameters: IndexParameters) throws {
            directory = NSTemporaryDirectory() + "typeahead-exactness-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            shard = try Shard(directory: directory)
            if let entries {
                try shard.build(from: entries, parameters: parameters)
            }
        }

        deinit {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Counts mismatches; reports the first few in full and the total at the end.
    struct Reporter {
        let name: String
        var checked = 0
        var mismatches = 0
        let started = Date()
        static let detailed = 3

        init(name: String) {
            self.name = name
            Timing.reset()
            Coverage.reset()
        }

        /// Returns true for the first mismatch (the caller may then shrink it).
        @discardableResult
        mutating func check(_ diff: String?, context: @autoclosure () -> String,
                            file: StaticString = #filePath, line: UInt = #line) -> Bool {
            checked += 1
            guard let diff else { return false }
            mismatches += 1
            if mismatches <= Reporter.detailed {
                XCTFail("[\(name)] index disagrees with the reference\n\(context())\n\(diff)", file: file, line: line)
            }
            return mismatches == 1
        }

        func finish(file: StaticString = #filePath, line: UInt = #line) {
            print("[\(name)] compared \(checked) responses, \(mismatches) mismatches; "
                  + String(format: "%.1f s in all: ", Date().timeIntervalSince(started)) + Timing.summary
                  + "\n[\(name)] coverage: " + Coverage.summary)
            if mismatches > Reporter.detailed {
                XCTFail("[\(name)] \(mismatches) of \(checked) responses disagree (first \(Reporter.detailed) shown)",
                        file: file, line: line)
            }
        }
    }

    func seedLabel(_ seed: UInt64) -> String {
        "seed 0x\(String(seed, radix: 16)) (base TYPEAHEAD_SEED=0x\(String(Self.baseSeed, radix: 16)))"
    }

    // MARK: - Shrinking

    /// Delta debugging over the catalog: drops chunks of entries while the shard still
    /// disagrees with the reference on `diff`, then prints the minimal catalog.
    func shrink(entries: [CatalogEntry], parameters: IndexParameters, what: String,
                diff: (Shard, ReferenceIndex) -> String?) {
        guard Self.minimize else { return }
        let started = Date()
        var trials = 0
        func fails(_ subset: [CatalogEntry]) -> Bool {
            trials += 1
            guard let fixture = try? ShardFixture(entries: subset, parameters: parameters) else { return true }
            return diff(fixture.shard, ReferenceIndex(entries: subset)) != nil
        }
        var current = entries
        var chunks = 2
        while !current.isEmpty, trials < 400, Date().timeIntervalSince(started) < 60 {
            let size = max(1, (current.count + chunks - 1) / chunks)
            var removed = false
            var start = 0
            while start < current.count, trials < 400 {
                let candidate = Array(current[..<start]) + Array(current[min(current.count, start + size)...])
                if fails(candidate) {
                    current = candidate
                    removed = true
                } else {
                    start += size
                }
            }
            if removed {
                chunks = max(2, chunks - 1)
            } else if size == 1 {
                break
            } else {
                chunks = min(current.count, chunks * 2)
            }
        }
        // Then simplify the remaining entries field by field.
        for i in current.indices {
            let simplifications: [(inout CatalogEntry) -> Void] = [
                { $0.description = nil }, { $0.attributes = [:] }, { $0.aliases = [] }, { $0.categories = [] },
            ]
            for simplify in simplifications where trials < 500 {
                var candidate = current
                simplify(&candidate[i])
                if candidate[i] != current[i], fails(candidate) {
                    current = candidate
                }
            }
        }
        var report = "[shrunk in \(trials) builds] \(what) still disagrees on this \(current.count)-entry catalog:\n"
        report += current.map(\.reportLine).joined(separator: "\n")
        if let fixture = try? ShardFixture(entries: current, parameters: parameters),
           let d = diff(fixture.shard, ReferenceIndex(entries: current)) {
            report += "\n" + d
        }
        if let fixture = try? ShardFixture(entries: current, parameters: IndexParameters()) {
            let d = diff(fixture.shard, ReferenceIndex(entries: current))
            report += "\n(with default IndexParameters it \(d == nil ? "agrees" : "still disagrees"))"
        }
        XCTFail(report)
    }

    // MARK: - 1. Suggest on random catalogs

    func testSuggestMatchesReferenceOnRandomCatalogs() throws {
        var reporter = Reporter(name: "suggest/random")
        for (index, configuration) in Self.configurations().enumerated() {
            let seed = Self.baseSeed &+ UInt64(index) &* 1_000_003
            var rng = SeededGenerator(seed: seed)
            let (entries, catalog) = Self.makeCatalog(configuration, seed: seed, rng: &rng)
            let reference = ReferenceIndex(entries: entries)
            let fixture = try ShardFixture(entries: entries, parameters: configuration.parameters)
            let requests = Workload.suggestRequests(entries: entries, categories: catalog.categories,
                                                    vocabulary: catalog.vocabulary, count: Self.scaled(300), &rng)
            for request in requests {
                let diff = suggestDiff(shard: fixture.shard, reference: reference, request: request)
                if reporter.check(diff, context: "\(seedLabel(seed)), catalog \(index): \(configuration.label)\n\(Render.request(request))") {
                    shrink(entries: entries, parameters: configuration.parameters, what: Render.request(request)) {
                        suggestDiff(shard: $0, reference: $1, request: request)
                    }
                }
            }
        }
        reporter.finish()
    }

    // MARK: - 3. Search on random catalogs

    func testSearchMatchesReferenceOnRandomCatalogs() throws {
        var reporter = Reporter(name: "search/random")
        for (index, configuration) in Self.configurations().enumerated() {
            let seed = Self.baseSeed &+ UInt64(index) &* 1_000_003 &+ 77
            var rng = SeededGenerator(seed: seed)
            let (entries, catalog) = Self.makeCatalog(configuration, seed: seed, rng: &rng)
            let reference = ReferenceIndex(entries: entries)
            let fixture = try ShardFixture(entries: entries, parameters: configuration.parameters)
            let suggests = Workload.suggestRequests(entries: entries, categories: catalog.categories,
                                                    vocabulary: catalog.vocabulary, count: Self.scaled(120), &rng)
            for request in Workload.searchRequests(from: suggests, &rng) {
                let diff = searchDiff(shard: fixture.shard, reference: reference, request: request)
                if reporter.check(diff, context: "\(seedLabel(seed)), catalog \(index): \(configuration.label)\n\(Render.request(request))") {
                    shrink(entries: entries, parameters: configuration.parameters, what: Render.request(request)) {
                        searchDiff(shard: $0, reference: $1, request: request)
                    }
                }
            }
        }
        reporter.finish()
    }

    // MARK: - 4. Interleaved updates

    func testUpdatesKeepTheIndexExact() throws {
        var reporter = Reporter(name: "updates")
        let configurations = [
            Configuration(size: 150, vocabulary: 25, listSize: 2, heavyThreshold: 3),
            Configuration(size: 300, vocabulary: 35, listSize: 32, heavyThreshold: 32),
            Configuration(size: 60, vocabulary: 20, listSize: 3, heavyThreshold: 8),
            Configuration(size: 120, vocabulary: 20, listSize: 2, heavyThreshold: 2, synthetic: true),
        ]
        for (index, configuration) in configurations.enumerated() {
            let seed = Self.baseSeed &+ UInt64(index) &* 7_000_003 &+ 4
            var rng = SeededGenerator(seed: seed)
            let (initial, generator) = Self.makeCatalog(configuration, seed: seed, rng: &rng)
            var catalog = generator
            var reference = ReferenceIndex(entries: initial)
            let fixture = try ShardFixture(entries: initial, parameters: configuration.parameters)
            var firstFailure: (batch: Int, entries: [CatalogEntry], check: (Shard, ReferenceIndex) -> String?)? = nil
            for batch in 1...Self.scaled(4) {
                let current = reference.entries.sorted { bytesPrecede($0.id, $1.id) }
                let (upserts, deletes) = catalog.randomUpdateBatch(&rng, current: current)
                // Usually upserts first, then deletes; sometimes the other way round (a delete
                // followed by an upsert of the same id brings it back).
                let deletesFirst = rng.chance(0.3)
                // Sometimes the delta is folded into the base (a merge) after the batch, or a merge
                // begun before it finishes after it, so that the batch's writes reach the new
                // revision through the merge's log.
                let merge = rng.chance(0.5) ? MergeMoment.none : rng.chance(0.5) ? .after : .around
                let pending = merge == .around ? try fixture.shard.beginMerge() : nil
                if deletesFirst, !deletes.isEmpty {
                    _ = try fixture.shard.delete(ids: deletes)
                    reference.delete(ids: deletes)
                }
                if !upserts.isEmpty {
                    _ = try fixture.shard.upsert(upserts)
                    reference.upsert(upserts)
                }
                if !deletesFirst, !deletes.isEmpty {
                    _ = try fixture.shard.delete(ids: deletes)
                    reference.delete(ids: deletes)
                }
                if let pending {
                    let built = try fixture.shard.buildMerge(pending)
                    XCTAssertNotNil(try fixture.shard.finishMerge(pending, build: built))
                } else if merge == .after {
                    try fixture.shard.merge()
                }
                if merge == .after { XCTAssertEqual(try fixture.shard.deltaSize().total, 0, "a merge leaves no delta") }
                let now = reference.entries.sorted { bytesPrecede($0.id, $1.id) }
                let context = "\(seedLabel(seed)), update catalog \(index): \(configuration.label), after batch \(batch) "
                    + "(\(upserts.count) upserts [\(upserts.map(\.id).joined(separator: " "))], "
                    + "\(deletes.count) deletes [\(deletes.joined(separator: " "))]\(deletesFirst ? ", deletes applied first" : "")"
                    + "\(merge == .none ? "" : merge == .after ? ", merged after" : ", merged around it")), "
                    + "\(now.count) entries now"
                let suggests = Workload.suggestRequests(entries: now, categories: catalog.categories,
                                                        vocabulary: catalog.vocabulary, count: 160, &rng)
                for request in suggests {
                    let diff = suggestDiff(shard: fixture.shard, reference: reference, request: request)
                    if reporter.check(diff, context: context + "\n" + Render.request(request)), firstFailure == nil {
                        firstFailure = (batch, now, { suggestDiff(shard: $0, reference: $1, request: request) })
                    }
                }
                for request in Workload.searchRequests(from: Array(suggests.prefix(60)), &rng) {
                    let diff = searchDiff(shard: fixture.shard, reference: reference, request: request)
                    if reporter.check(diff, context: context + "\n" + Render.request(request)), firstFailure == nil {
                        firstFailure = (batch, now, { searchDiff(shard: $0, reference: $1, request: request) })
                    }
                }
            }
            if let failure = firstFailure {
                // Tells whether the updates are to blame: does a fresh build of the same
                // entries answer the first failing request correctly?
                let fresh = try ShardFixture(entries: failure.entries, parameters: configuration.parameters)
                let freshDiff = failure.check(fresh.shard, ReferenceIndex(entries: failure.entries))
                let note = "[updates] first mismatch (batch \(failure.batch)): a fresh build of the same \(failure.entries.count) entries "
                    + (freshDiff == nil ? "AGREES with the reference, so the updates are to blame"
                                        : "disagrees too, so it is not (only) an update problem")
                print(note)
            }
            // The final state once more, against a fresh build of it.
            let final = reference.entries
            let fresh = try ShardFixture(entries: final, parameters: configuration.parameters)
            let suggests = Workload.suggestRequests(entries: final, categories: catalog.categories,
                                                    vocabulary: catalog.vocabulary, count: 100, &rng)
            for request in suggests {
                reporter.check(suggestDiff(shard: fresh.shard, reference: reference, request: request),
                               context: "\(seedLabel(seed)), fresh build of the final state of update catalog \(index)\n\(Render.request(request))")
            }
        }
        reporter.finish()
    }

    /// When a merge happens relative to an update batch in ``testUpdatesKeepTheIndexExact()``.
    private enum MergeMoment { case none, after, around }

    // MARK: - 5. Generation switch

    func testGenerationSwitch() throws {
        var reporter = Reporter(name: "generations")
        let seed = Self.baseSeed &+ 5
        var rng = SeededGenerator(seed: seed)
        var catalogA = RandomCatalog(vocabularySize: 25, rng: &rng, idPrefix: "a")
        let entriesA = catalogA.randomEntries(120, &rng)
        var catalogB = RandomCatalog(vocabularySize: 25, rng: &rng, idPrefix: "b")
        // B shares some ids with A (rewritten) and has new ones.
        var entriesB = catalogB.randomEntries(100, &rng)
        for i in 0..<20 {
            entriesB.append(catalogB.randomEntry(&rng, existing: entriesB, id: entriesA[i].id))
        }
        let referenceA = ReferenceIndex(entries: entriesA)
        let referenceB = ReferenceIndex(entries: entriesB)
        let fixture = try ShardFixture(entries: nil, parameters: .init())
        let parameters = IndexParameters(listSize: 3, heavyThreshold: 4)
        try fixture.shard.build(from: entriesA, parameters: parameters)

        let requestsA = Workload.suggestRequests(entries: entriesA, categories: catalogA.categories,
                                                 vocabulary: catalogA.vocabulary, count: 60, &rng)
        let requestsB = Workload.suggestRequests(entries: entriesB, categories: catalogB.categories,
                                                 vocabulary: catalogB.vocabulary, count: 60, &rng)
        let mixed = requestsA + requestsB
        let searches = Workload.searchRequests(from: Array(requestsA.prefix(20) + requestsB.prefix(20)), &rng)

        func compare(_ reference: ReferenceIndex, _ phase: String) {
            for request in mixed {
                reporter.check(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                               context: "\(seedLabel(seed)), \(phase)\n\(Render.request(request))")
            }
            for request in searches {
                reporter.check(searchDiff(shard: fixture.shard, reference: reference, request: request),
                               context: "\(seedLabel(seed)), \(phase)\n\(Render.request(request))")
            }
        }

        compare(referenceA, "generation A built and active")
        let infoB = try fixture.shard.buildGeneration(from: entriesB, parameters: parameters)
        compare(referenceA, "generation B built but not activated: still A")
        try fixture.shard.activate(generation: infoB.number)
        compare(referenceB, "generation B activated")
        try fixture.shard.rollback()
        compare(referenceA, "rolled back to generation A")
        reporter.finish()
    }

    // MARK: - 6. Real data

    /// A sample of a real catalog, queried with keystroke workloads under the default and
    /// small trie parameters.
    func runRealSample(file: String, count: Int, suggests: (default: Int, small: Int), searches: Int,
                       seed: UInt64) throws {
        let path = SharedData.path(file)
        guard FileManager.default.fileExists(atPath: path) else {
            throw XCTSkip("no real catalog at \(path)")
        }
        let entries = try SharedData.sample(path: path, count: Self.thorough ? count * 2 : count)
        XCTAssertGreaterThan(entries.count, count / 2)
        var categories: [String] = []
        for e in entries {
            for c in e.categories where !categories.contains(c) { categories.append(c) }
        }
        var reporter = Reporter(name: file)
        var rng = SeededGenerator(seed: seed)
        let reference = ReferenceIndex(entries: entries)
        for (label, parameters) in [("default", IndexParameters()), ("small", IndexParameters(listSize: 4, heavyThreshold: 8))] {
            let fixture = try ShardFixture(entries: entries, parameters: parameters)
            let context = "\(seedLabel(seed)), \(file) sample of \(entries.count), \(label) parameters"
            let requests = Workload.suggestRequests(entries: entries, categories: categories, vocabulary: [],
                                                    count: Self.scaled(label == "default" ? suggests.default : suggests.small), &rng)
            for request in requests {
                reporter.check(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                               context: context + "\n" + Render.request(request))
            }
            // Larger pages than on the small catalogs: one-letter queries match thousands.
            let searchRequests = Workload.searchRequests(from: Array(requests.shuffled(using: &rng).prefix(Self.scaled(searches))),
                                                         pageSizes: 10...100, &rng)
            for request in searchRequests {
                reporter.check(searchDiff(shard: fixture.shard, reference: reference, request: request),
                               context: context + "\n" + Render.request(request))
            }
        }
        reporter.finish()
    }

    /// Debian packages: hyphenated names, 58 sections, many weight ties.
    func testRealDebianSample() throws {
        try runRealSample(file: "debian.jsonl.gz", count: 3000, suggests: (600, 300), searches: 60,
                          seed: Self.baseSeed &+ 6)
    }

    /// Cities: aliases in many scripts, duplicate titles, diacritics.
    func testRealCitiesSample() throws {
        try runRealSample(file: "cities.jsonl.gz", count: 2000, suggests: (350, 150), searches: 40,
                          seed: Self.baseSeed &+ 7)
    }

    /// The first keystroke at two edits (a word's eighth scalar) is walked from the keystroke
    /// before's one-edit regions (``Generation/nameRegions(matching:terms:in:)``, the split walk):
    /// long words typed scalar by scalar, clean and with a typo, answer as the reference does at
    /// every keystroke, and the split walk is taken. On 1,000 entries of the synthetic catalog
    /// (`typeahead bench --synthetic`), whose words are long and alike, under both the default
    /// and small trie parameters; whole titles are typed, so the long word is often the second.
    func testTheStepToTwoEditsIsExact() throws {
        let seed = Self.baseSeed &+ 11
        let entries = Array(SyntheticCatalog(seed: seed, count: 1000))
        let reference = ReferenceIndex(entries: entries)
        var rng = SeededGenerator(seed: seed)
        var reporter = Reporter(name: "two-edit step")
        let long = entries.map(\.title).filter { $0.split(separator: " ").contains { $0.unicodeScalars.count >= 9 } }
        XCTAssertGreaterThan(long.count, 20)
        let before = Generation.twoEditStepsFromOneEdit.load(ordering: .relaxed)
        for parameters in [IndexParameters(), IndexParameters(listSize: 4, heavyThreshold: 8)] {
            let fixture = try ShardFixture(entries: entries, parameters: parameters)
            for _ in 0..<Self.scaled(10) {
                var typed = Array(rng.pick(long))
                if rng.chance(0.5) { typed[rng.int(1...(typed.count - 1))] = rng.pick(Array("aeiourstn")) }
                var text = ""
                for character in typed {
                    text.append(character)
                    reporter.check(suggestDiff(shard: fixture.shard, reference: reference, request: SuggestRequest(text: text)),
                                   context: "\(seedLabel(seed)), list size \(parameters.listSize), typed \(text)")
                }
            }
        }
        reporter.finish()
        XCTAssertGreaterThan(Generation.twoEditStepsFromOneEdit.load(ordering: .relaxed), before)
    }

    // MARK: - Minimal cases

    /// Categories are exact bytes (Semantics.md): "Café" (NFC) and "Cafe\u{301}" (NFD) are two
    /// categories, even though Swift's `==` calls them equal.
    func testCategoriesCompareAsBytes() throws {
        let entries = [
            CatalogEntry(id: "1", title: "band", categories: ["Café"], weight: 1),
            CatalogEntry(id: "2", title: "applet", categories: ["Cafe\u{301}"], weight: 0),
            CatalogEntry(id: "3", title: "apple", categories: ["Café", "Cafe\u{301}"], weight: 0),
        ]
        let reference = ReferenceIndex(entries: entries)
        let fixture = try ShardFixture(entries: entries, parameters: .init())
        var reporter = Reporter(name: "categories-as-bytes")
        let catalog = entries.map(\.reportLine).joined(separator: "\n")
        for request in [
            SuggestRequest(text: "c"),
            SuggestRequest(text: "", tokens: [.category("Cafe\u{301}")]),
            SuggestRequest(text: "", tokens: [.category("Café")]),
            SuggestRequest(text: "ap", tokens: [.category("Cafe\u{301}")]),
        ] {
            reporter.check(suggestDiff(shard: fixture.shard, reference: reference, request: request),
                           context: "catalog:\n\(catalog)\n\(Render.request(request))")
        }
        for request in [
            SearchRequest(text: "", pageSize: 10),
            SearchRequest(text: "", tokens: [.category("Cafe\u{301}")], pageSize: 10),
        ] {
            reporter.check(searchDiff(shard: fixture.shard, reference: reference, request: request),
                           context: "catalog:\n\(catalog)\n\(Render.request(request))")
        }
        reporter.finish()
    }

    // MARK: - The reference itself

    /// A few hand-checked answers, so that the oracle is not only compared with the index.
    /// Regression: the general plan reads candidates in passes by a lower bound of their typos. An
    /// entry kept from an earlier pass can have as many typos as the next pass's bound ("apple bxnaq":
    /// exact complete word, a typo in the partial one), and a later pass can hold a better-ranked
    /// entry with as many ("appel banana", weight 100). Reading must not stop at the pass boundary.
    /// (The partial word's exact postings are many, so only the complete words split the passes.)
    func testAnEntryFromAnEarlierPassDoesNotSettleTheNext() throws {
        var entries = [
            CatalogEntry(id: "a", title: "apple bxnaq", weight: 1),
            CatalogEntry(id: "b", title: "appel banana", weight: 100),
        ]
        for n in 0..<30 { entries.append(CatalogEntry(id: "f\(n)", title: "banana split \(n)", weight: 5)) }
        let fixture = try ShardFixture(entries: entries, parameters: IndexParameters())
        let request = SuggestRequest(text: "apple bana", limits: .init(entries: 1, categories: 0, completions: 0))
        XCTAssertEqual(ReferenceIndex(entries: entries).suggest(request).entries.map(\.id), ["b"])
        XCTAssertEqual(try fixture.shard.suggest(request).entries.map(\.id), ["b"])
    }

    func testReferenceOnHandWrittenCatalog() throws {
        let entries = [
            CatalogEntry(id: "1", title: "Apple Pie", categories: ["Food", "Food"], weight: 5,
                         aliases: ["tarte aux pommes"], attributes: ["price": "3", "colour": "gold"]),
            CatalogEntry(id: "2", title: "Apple", categories: ["Fruit"], weight: 5),
            CatalogEntry(id: "3", title: "Pineapple", categories: ["Fruit"], weight: 9),
            CatalogEntry(id: "4", title: "Apple", categories: ["Phones"], weight: 1, description: "pie chart"),
            CatalogEntry(id: "5", title: "Applet Viewer", categories: ["Apps"], weight: 0),
            CatalogEntry(id: "6", title: "Apple", categories: ["Fruit"], weight: 2),
        ]
        let reference = ReferenceIndex(entries: entries)

        let r = reference.suggest(SuggestRequest(text: "app", limits: .init(entries: 10, categories: 3, completions: 5)))
        // The index agrees (the randomised tests compare them at scale).
        let fixture = try ShardFixture(entries: entries, parameters: IndexParameters())
        XCTAssertEqual(try fixture.shard.suggest(SuggestRequest(text: "app", limits: .init(entries: 10, categories: 3, completions: 5))).entries.map(\.id),
                       r.entries.map(\.id))
        // Equal weights: "apple" sorts before "apple pie". "6" is displayed as "2" is (title and
        // categories) and collapses into it; "4" has the same title in another category and stays.
        XCTAssertEqual(r.entries.map(\.id), ["2", "1", "4", "5"])
        XCTAssertEqual(r.entries[1].categories, ["Food"])
        XCTAssertEqual(r.entries[1].attributes.map(\.key), ["colour", "price"])
        XCTAssertEqual(r.entries[1].highlights, [Highlight(start: 0, end: 5)])
        XCTAssertEqual(r.entries[1].rank, RankKey(typos: 0, startsWith: true, weight: 5, sortTitle: "apple pie", id: "1"))
        XCTAssertEqual(r.completions.map(\.text), ["Apple", "Applet"])
        XCTAssertEqual(r.completions.map(\.term), ["apple", "applet"])
        XCTAssertEqual(r.categories.map(\.name), ["Apps"])      // "app" is a prefix of "apps" only

        let noDedupe = reference.suggest(SuggestRequest(text: "app", dedupe: false))
        XCTAssertEqual(noDedupe.entries.map(\.id), ["2", "1", "6", "4", "5"])

        // A typo: "appel" is one edit from "apple", not a prefix: startsWith is false.
        let typo = reference.suggest(SuggestRequest(text: "appel "))
        XCTAssertEqual(typo.entries.map(\.id), ["2", "1", "4"])
        XCTAssertEqual(typo.entries.map(\.rank.typos), [1, 1, 1])
        XCTAssertEqual(typo.entries.map(\.rank.startsWith), [false, false, false])
        XCTAssertTrue(reference.suggest(SuggestRequest(text: "appel ", typos: .off)).entries.isEmpty)

        // Tokens filter; categories exclude tokens.
        let fruit = reference.suggest(SuggestRequest(text: "ap", tokens: [.category("Fruit")]))
        XCTAssertEqual(fruit.entries.map(\.id), ["2"])

        // Search: description matches with field 2, alias with field 1.
        let pie = reference.searchAll(SearchRequest(text: "pie"))
        XCTAssertEqual(pie.hits.map(\.id), ["1", "4"])
        XCTAssertEqual(pie.hits.map(\.rank.field), [0, 2])
        XCTAssertEqual(pie.facets, [Facet(name: "Food", count: 1), Facet(name: "Phones", count: 1)])
        let byWeight = reference.searchAll(SearchRequest(text: "", sort: .weight))
        XCTAssertEqual(byWeight.hits.map(\.id), ["3", "1", "2", "6", "4", "5"])
        XCTAssertEqual(byWeight.totalHits, 6)
        let tarte = reference.searchAll(SearchRequest(text: "tarte"))
        XCTAssertEqual(tarte.hits.map(\.rank), [RankKey(typos: 0, field: 1, startsWith: false, weight: 5, sortTitle: "", id: "1")])
    }
}
