import Analysis
import Catalog
@testable import Index
import Storage
import TestSupport
import XCTest

/// Completions an entry does not offer: alias words that spell one of its title words another
/// way (Semantics.md, "completions"; ``CompletionSource``). Cities' aliases are full of them: São
/// Paulo's "Palo", "palw", "Paolo", "Paul", "Paulas" filled "sao pa"'s completions and left "Paulo"
/// out. Every plan finds a word's best entry among the entries that offer it (the trie's lists,
/// region lists, postings, verified candidates, delta documents), in both generation layouts
/// (the current one records the variants; the original one asks each document), through updates.
final class CompletionVariantsTests: XCTestCase {
    /// Families of a title word and spellings of it that aliases use; some spellings are also
    /// other entries' title words ("palo" as in Palo Alto), most are not.
    static let families: [(title: String, variants: [String])] = [
        ("paulo", ["palo", "palw", "paolo", "paul", "paulas"]),
        ("york", ["yorc", "yorck", "yorke", "yorku"]),
        ("roma", ["rome", "romma", "rooma"]),
        ("berlin", ["berlyn", "berllin", "berlim"]),
    ]
    /// Alias words that are not spellings of any title word (too far, too short, other letters).
    static let others = ["moskva", "nyc", "sp", "capital", "cidade", "pauliceia", "yonkers", "rombo"]
    static let fillers = ["sao", "new", "city", "de", "alto", "do", "norte", "sul"]

    static func makeEntries(_ rng: inout SeededGenerator, count: Int, idPrefix: String = "e") -> [CatalogEntry] {
        var entries: [CatalogEntry] = []
        for n in 0..<count {
            let family = families.randomElement(using: &rng)!
            // "sao" in half the titles: the general plan's big candidate sets (typo'd partial words
            // after it take completions from the words' postings).
            var title = [rng.chance(0.5) ? "sao" : fillers.randomElement(using: &rng)!]
            // Mostly the family's title word; sometimes one of its spellings is a title word here.
            title.append(rng.chance(0.85) ? family.title : family.variants.randomElement(using: &rng)!)
            if rng.chance(0.4) { title.append(fillers.randomElement(using: &rng)!) }
            // Many other words under the same prefixes, so that the trie's lists are truncated and
            // the plans read postings too.
            if rng.chance(0.3) {
                let letters = Array("abcdeilmnorstu")
                title.append(String(family.title.prefix(2)) + String((0..<Int.random(in: 1...4, using: &rng)).map { _ in letters.randomElement(using: &rng)! }))
            }
            title.shuffle(using: &rng)
            var aliases: [String] = []
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                let word = rng.chance(0.7) ? family.variants.randomElement(using: &rng)! : others.randomElement(using: &rng)!
                aliases.append(rng.chance(0.5) ? "\(fillers.randomElement(using: &rng)!) \(word.capitalized)" : word)
            }
            entries.append(CatalogEntry(id: "\(idPrefix)\(n)", title: title.map(\.capitalized).joined(separator: " "),
                                        categories: ["c\(n % 3)"],
                                        weight: UInt64(rng.chance(0.2) ? 500 : Int.random(in: 1...100_000, using: &rng)),
                                        aliases: aliases))
        }
        return entries
    }

    func testNoPlanOffersAnAliasSpellingOfItsEntrysTitleWord() throws {
        var rng = SeededGenerator(seed: 20261205)
        let entries = Self.makeEntries(&rng, count: 700)
        var reference = ReferenceIndex(entries: entries)
        var plans: [SuggestPlanKind: Int] = [:]
        var compared = 0
        var texts = ["p", "pa", "pal", "pao", "pau", "paul", "paulo", "palw", "y", "yo", "yor", "yorc", "r", "ro", "rom", "rome",
                     "b", "be", "ber", "berl", "berly", "m", "mo", "n", "ny"]
        texts += texts.map { "sao " + $0 } + texts.prefix(8).map { "new " + $0 } + ["sao paulo ", "new york ", "rome sao pa"]
        texts += ["sao paulp", "sao pail", "sao yorcj", "sao berlyn", "sao romaa", "sao plao"]
        for (name, shard, _) in try GenerationFormatTests.shardsInBothLayouts(entries, parameters: IndexParameters(listSize: 6, heavyThreshold: 6)) {
            reference = ReferenceIndex(entries: entries)
            var rng = SeededGenerator(seed: 77)
            for batch in 0...3 {
                if batch > 0 {
                    // Re-weight and delete the entries that are the best of the top words, add new ones.
                    let ranked = reference.entries.sorted { $0.weight > $1.weight }
                    var updates = Array(ranked.prefix(12)).enumerated().map { offset, entry in
                        var entry = entry
                        entry.weight = UInt64(offset % 2 == 0 ? 1 : Int.random(in: 1...200_000, using: &rng))
                        return entry
                    }
                    updates += Self.makeEntries(&rng, count: 20, idPrefix: "b\(batch)-")
                    let deletions = ranked.dropFirst(12).prefix(4).map(\.id)
                    _ = try shard.upsert(updates)
                    _ = try shard.delete(ids: Array(deletions))
                    reference.upsert(updates)
                    reference.delete(ids: Array(deletions))
                }
                for text in texts {
                    for limits in [SuggestLimits(entries: 5, categories: 0, completions: 5), SuggestLimits(entries: 0, categories: 0, completions: 2),
                                   SuggestLimits(entries: 10, categories: 3, completions: 12)] {
                        for typos in TypoMode.allCases {
                            let request = SuggestRequest(text: text, limits: limits, typos: typos)
                            XCTAssertNil(suggestDiff(shard: shard, reference: reference, request: request),
                                         "\(name), batch \(batch): \"\(text)\" \(limits) \(typos)")
                            plans[try shard.suggest(request) { $0.plan }, default: 0] += 1
                            compared += 1
                        }
                    }
                }
            }
        }
        print("[completion variants] \(compared) answers compared; plans \(plans)")
        XCTAssertGreaterThan(plans[.trie] ?? 0, 20, "the trie's lists are exercised")
        XCTAssertGreaterThan(plans[.partialWord] ?? 0, 20, "the region lists and postings are exercised")
        XCTAssertGreaterThan(plans[.general] ?? 0, 20, "the general plan's completions are exercised")
    }

    /// What the rule is for: the title's spelling is offered, the alias spellings of it are not
    /// (by that entry), and words that merely share letters still are.
    func testTheTitleSpellingIsOfferedAndItsAliasSpellingsAreNot() throws {
        let entries = [
            CatalogEntry(id: "sp", title: "São Paulo", categories: ["Brazil"], weight: 12_000_000,
                         aliases: ["Sao Palo", "sao palw", "Sao Paolo", "Sao Paul", "Sao Paulas", "Pauliceia"]),
            CatalogEntry(id: "pa", title: "Palo Alto", categories: ["United States"], weight: 60_000),
            CatalogEntry(id: "sr", title: "São Roque", categories: ["Brazil"], weight: 90_000, aliases: ["Sao Pedro"]),
        ]
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        let reference = ReferenceIndex(entries: entries)
        let request = SuggestRequest(text: "sao pa", limits: SuggestLimits(entries: 3, categories: 0, completions: 5), typos: .off)
        XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request))
        let terms = try fixture.shard.suggest(request).completions.map(\.term)
        XCTAssertEqual(terms, ["paulo", "pauliceia"], "São Paulo's title word, then its other alias; not its spellings of Paulo")
        // "palo" is Palo Alto's title word: offered by it (São Paulo also matches "sao pal", but only
        // Palo Alto offers the word).
        let pal = try fixture.shard.suggest(SuggestRequest(text: "pal", limits: SuggestLimits(entries: 3, categories: 0, completions: 5), typos: .off))
        XCTAssertEqual(pal.completions.map(\.term), ["palo"])
        XCTAssertEqual(pal.completions.first?.best.id, "pa")
        XCTAssertTrue(EditDistance.isSpellingVariant("palw", of: "paulo"))
        XCTAssertFalse(EditDistance.isSpellingVariant("moskva", of: "moscow"))
        XCTAssertFalse(EditDistance.isSpellingVariant("nyc", of: "new"))
    }

    /// A typo'd lone partial word's completions come from single words ("paul" is one edit from
    /// "paulo", but "paulo…" below it is nearer, so "paul" is a region alone) and light subtrees
    /// ("yor…" is one edit from "yorx" throughout), each word looked up through cursors kept for
    /// the whole walk, its variants walked alongside in key order. Each word's best entry is its
    /// first entry that offers it: the heavy entries here have the words as alias spellings of
    /// their title words, so a lighter entry is the best.
    func testTypoCompletionsSkipAliasSpellingsInSingleWordsAndLightSubtrees() throws {
        let entries = [
            CatalogEntry(id: "sp", title: "Paulo Centro", categories: ["c"], weight: 9_000, aliases: ["Paul", "Paulas"]),
            CatalogEntry(id: "pt", title: "Paul Town", categories: ["c"], weight: 50),
            CatalogEntry(id: "pb", title: "Paulas Bay", categories: ["c"], weight: 40),
            CatalogEntry(id: "ny", title: "York", categories: ["c"], weight: 8_000, aliases: ["Yorc", "Yorck", "Yorke", "Yorku"]),
            CatalogEntry(id: "yk", title: "Yorke Sound", categories: ["c"], weight: 30),
            CatalogEntry(id: "yc", title: "Yorck Hill", categories: ["c"], weight: 20),
            CatalogEntry(id: "yu", title: "Yorku Field", categories: ["c"], weight: 10),
            CatalogEntry(id: "yr", title: "Yoram Park", categories: ["c"], weight: 5),
        ]
        let fixture = try ExactnessTests.ShardFixture(entries: entries, parameters: IndexParameters())
        let reference = ReferenceIndex(entries: entries)
        let limits = SuggestLimits(entries: 3, categories: 0, completions: 8)
        func completions(_ text: String) throws -> [String: String] {
            let request = SuggestRequest(text: text, limits: limits, typos: .auto)
            XCTAssertNil(suggestDiff(shard: fixture.shard, reference: reference, request: request), text)
            XCTAssertEqual(try fixture.shard.suggest(request) { $0.plan }, .partialWord, text)
            return Dictionary(uniqueKeysWithValues: try fixture.shard.suggest(request).completions.map { ($0.term, $0.best.id) })
        }
        let paulo = try completions("paulo")
        XCTAssertEqual(paulo["paul"], "pt", "Paulo Centro spells its title word so: Paul Town offers it")
        XCTAssertEqual(paulo["paulo"], "sp")
        let yorx = try completions("yorx")
        XCTAssertEqual(yorx["york"], "ny")
        XCTAssertEqual(yorx["yorke"], "yk")
        XCTAssertEqual(yorx["yorck"], "yc")
        XCTAssertEqual(yorx["yorku"], "yu")
        XCTAssertEqual(yorx["yoram"], "yr")
        XCTAssertNil(yorx["yorc"], "only York has it, as a spelling of its title word")
    }

    /// The index's variant test on stored bytes (``CompletionSource/isVariant(_:titleWords:)``)
    /// is the string rule of Semantics.md (``EditDistance/isSpellingVariant(_:of:)``, which the
    /// reference uses): random alias words against random titles over a small alphabet with
    /// multi-byte scalars, so that shared first letters, near spellings and equal words are common.
    func testTheVariantTestOnBytesIsTheStringRule() throws {
        var rng = SeededGenerator(seed: 20261206)
        let alphabet: [Character] = ["a", "b", "o", "é", "ж", "字"]
        func word() -> String { String((0..<rng.int(1...7)).map { _ in rng.pick(alphabet) }) }
        // A word 0–3 random edits from `base`: mostly near spellings of it.
        func respelled(_ base: String) -> String {
            var scalars = Array(base)
            for _ in 0..<rng.int(0...3) {
                let at = rng.int(0...scalars.count)
                switch rng.int(0...2) {
                case 0: scalars.insert(rng.pick(alphabet), at: at)
                case 1 where at < scalars.count: scalars.remove(at: at)
                default: if at < scalars.count { scalars[at] = rng.pick(alphabet) }
                }
            }
            return String(scalars)
        }
        var variants = 0
        for _ in 0..<20_000 {
            let alias = word()
            let titleWords = (0..<rng.int(1...3)).map { _ in rng.chance(0.2) ? alias : rng.chance(0.6) ? respelled(alias) : word() }
            let expected = titleWords.contains { EditDistance.isSpellingVariant(alias, of: $0) }
            let title = titleWords.joined(separator: " ")
            let found = try Bytes.withView(of: Array(title.utf8)) { CompletionSource.isVariant(Array(alias.utf8), titleWords: $0) }
            XCTAssertEqual(found, expected, "\(alias) in \(title)")
            if expected { variants += 1 }
        }
        XCTAssertGreaterThan(variants, 1_000)
    }
}
