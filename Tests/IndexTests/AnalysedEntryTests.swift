import Analysis
import Catalog
@testable import Index
import XCTest

/// `AnalysedEntry` keeps an entry's words in one buffer of runs; these tests hold its lists to
/// their definitions, written here with a `String` per word: the title's words in order, the
/// distinct name terms (title words, then alias words not met before), the description's words not
/// met before, each alias word with the alias it was first seen in and its range there.
final class AnalysedEntryTests: XCTestCase {
    let analyzer = Analyzer()

    /// The lists as the definitions give them.
    struct Lists: Equatable {
        var titleWords: [String] = []
        var sortTitle = ""
        var titleRanges: [Range<Int>] = []
        var nameTerms: [String] = []
        var aliasWords: [String] = []
        var aliasSources: [String] = []   // "alias index: range"
        var descriptionWords: [String] = []
        var categories: [String] = []
    }

    func definition(of entry: CatalogEntry) -> Lists {
        var lists = Lists()
        let words = analyzer.words(in: entry.title)
        lists.titleWords = words.map(\.term)
        lists.sortTitle = lists.titleWords.joined(separator: " ")
        lists.titleRanges = words.map(\.utf16Range)
        var seen = Set<[UInt8]>()
        for word in lists.titleWords where seen.insert(Array(word.utf8)).inserted { lists.nameTerms.append(word) }
        for (index, alias) in entry.aliases.enumerated() {
            for word in analyzer.words(in: alias) where seen.insert(Array(word.term.utf8)).inserted {
                lists.aliasWords.append(word.term)
                lists.aliasSources.append("\(index): \(word.utf16Range)")
            }
        }
        lists.nameTerms += lists.aliasWords
        for word in analyzer.terms(in: entry.description ?? "") where seen.insert(Array(word.utf8)).inserted {
            lists.descriptionWords.append(word)
        }
        for category in entry.categories where !lists.categories.contains(where: { $0.utf8.elementsEqual(category.utf8) }) {
            lists.categories.append(category)
        }
        return lists
    }

    func lists(of doc: AnalysedEntry) -> Lists {
        func strings(_ run: WordRun) -> [String] { run.map { String(decoding: $0, as: UTF8.self) } }
        return Lists(titleWords: strings(doc.titleWords), sortTitle: String(decoding: doc.sortTitle, as: UTF8.self),
                     titleRanges: doc.titleRanges, nameTerms: strings(doc.nameTerms), aliasWords: strings(doc.aliasWords),
                     aliasSources: doc.aliasSources.map { "\($0.alias): \($0.range)" },
                     descriptionWords: strings(doc.descriptionWords), categories: doc.categories)
    }

    func testTheListsAreTheirDefinitions() {
        // More than 16 distinct words (the seen words are hashed past that), repeated words in
        // every field, empty fields, marks, ideographs, words over 15 bytes.
        let many = (0..<40).map { "w\($0)" }.joined(separator: " ")
        var entries = [
            CatalogEntry(id: "1", title: "New New York", categories: ["Cities", "Cities", "US"], aliases: ["NYC", "new york city", "Nueva York"],
                         description: "The city of New York, new york, the Big Apple"),
            CatalogEntry(id: "2", title: "", aliases: ["", "only alias"], description: ""),
            CatalogEntry(id: "3", title: "Café cafe\u{301} 東京タワー", aliases: ["Cafe", "Tōkyō"], description: "café 東"),
            CatalogEntry(id: "4", title: many, aliases: [many + " x1"], description: many + " y1 w3"),
            CatalogEntry(id: "5", title: "internationalisation internationalization", aliases: ["internationalisations"],
                         description: "internationalisation " + String(repeating: "é", count: 40)),
            CatalogEntry(id: "6", title: "São Paulo", aliases: ["Sao Paulo", "Sampa", "sao paolo"]),
        ]
        entries += SyntheticCatalog(seed: 7, count: 2_000)
        for entry in entries {
            let doc = AnalysedEntry(entry, analyzer: analyzer)
            XCTAssertEqual(lists(of: doc), definition(of: entry), "entry \(entry.id): \(entry.title)")
            XCTAssertEqual(doc.aliasWords.isEmpty, definition(of: entry).aliasWords.isEmpty)
        }
    }

    /// The builder's view of the same buffer: its words by list, the first title word and the
    /// sort title, and the variant words it adds after them.
    func testTheBuildDocumentListsTheSameWords() {
        let entry = CatalogEntry(id: "6", title: "São Paulo Paulo", aliases: ["Sao Paulo", "Sampa", "sao paolo"], description: "big city São")
        let doc = AnalysedEntry(entry, analyzer: analyzer)
        let built = BuildDocument(doc, record: [], filterable: [])
        func words(_ list: BuildDocument.WordList) -> [String] {
            var words: [String] = []
            built.forEachWord(of: list) { words.append(String(decoding: $0, as: UTF8.self)) }
            return words
        }
        XCTAssertEqual(words(.names), ["sao", "paulo", "sampa", "paolo"])
        XCTAssertEqual(words(.description), ["big", "city"])
        XCTAssertEqual(words(.variants), ["paolo"])
        XCTAssertEqual(String(decoding: built.sortTitle, as: UTF8.self), "sao paulo paulo")
        XCTAssertEqual(String(decoding: built.firstWord, as: UTF8.self), "sao")
        let untitled = BuildDocument(AnalysedEntry(CatalogEntry(id: "7", title: "", aliases: ["x"]), analyzer: analyzer), record: [], filterable: [])
        XCTAssertTrue(untitled.firstWord.isEmpty)
        XCTAssertTrue(untitled.sortTitle.isEmpty)
    }
}
