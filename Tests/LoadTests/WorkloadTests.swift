import Catalog
@testable import Load
import XCTest

/// The typing model's promises (one character per keystroke, the intended text at the end,
/// pauses in range), the text sources and the arrival process.
final class WorkloadTests: XCTestCase {
    static let titles = ["Red Running Shoes", "Kitchen Towel", "Garden Hose 20 m", "iPhone-15 Pro", "Zürich Café", "東京都 地図",
                         "a", "Óscar's 🍕 Pizzeria"]

    /// Whether `next` is `previous` plus one character, or minus its last one.
    static func differsByOneCharacter(_ previous: String, _ next: String) -> Bool {
        let a = Array(previous), b = Array(next)
        if b.count == a.count + 1 { return Array(b.dropLast()) == a }
        if b.count + 1 == a.count { return Array(a.dropLast()) == b }
        return false
    }

    func testEveryKeystrokeAddsOrRemovesOneCharacterAndTheLastIsTheText() {
        var random = SplitMix64(seed: 9)
        for typos in [0.0, 0.1, 0.5, 1.0] {
            for backspaces in [0.0, 0.2, 1.0] {
                let model = TypingModel(keyDelay: .milliseconds(80) ... .milliseconds(250), typoRate: typos, backspaceRate: backspaces,
                                        submitRate: 0.5, maximumLength: 12)
                for title in Self.titles {
                    let plan = model.plan(typing: title, random: &random)
                    let intended = String(title.prefix(12))
                    XCTAssertEqual(plan.text, intended)
                    XCTAssertEqual(plan.keystrokes.last?.text, intended, "typos \(typos) backspaces \(backspaces): \(title)")
                    var previous = ""
                    for keystroke in plan.keystrokes {
                        XCTAssertTrue(Self.differsByOneCharacter(previous, keystroke.text), "\"\(previous)\" → \"\(keystroke.text)\"")
                        previous = keystroke.text
                    }
                    XCTAssertEqual(plan.keystrokes.first?.delay, 0)
                    for keystroke in plan.keystrokes.dropFirst() {
                        XCTAssertTrue((80_000_000...250_000_000).contains(keystroke.delay), "delay \(keystroke.delay)")
                    }
                    XCTAssertLessThanOrEqual(plan.keystrokes.count, 8 * intended.count)
                    if typos == 0 && backspaces == 0 {
                        XCTAssertEqual(plan.keystrokes.map(\.text), (1...intended.count).map { String(intended.prefix($0)) })
                    }
                    if typos == 1 {
                        XCTAssertEqual(plan.keystrokes.filter { $0.edit == .typo }.count, intended.count, "one typo per character")
                    }
                }
            }
        }
    }

    func testTyposAreNearbyKeysAndGetCorrected() {
        var random = SplitMix64(seed: 4)
        let plan = TypingModel(typoRate: 1, backspaceRate: 0).plan(typing: "shoes", random: &random)
        let typos = plan.keystrokes.filter { $0.edit == .typo }.map { $0.text.last! }
        XCTAssertEqual(typos.count, 5)
        // Neighbours of s, h, o, e, s on a QWERTY keyboard.
        let near: [Set<Character>] = [["a", "d", "w", "x"], ["g", "j", "y", "n"], ["i", "p", "l"], ["w", "r", "s", "d"], ["a", "d", "w", "x"]]
        for (typo, allowed) in zip(typos, near) { XCTAssertTrue(allowed.contains(typo), "typo \(typo) not in \(allowed)") }
        XCTAssertTrue(plan.keystrokes.contains { $0.edit == .backspace })
    }

    func testSubmitRate() {
        var random = SplitMix64(seed: 5)
        XCTAssertTrue((0..<200).allSatisfy { _ in TypingModel(submitRate: 1).plan(typing: "knife", random: &random).submits })
        XCTAssertTrue((0..<200).allSatisfy { _ in !TypingModel(submitRate: 0).plan(typing: "knife", random: &random).submits })
        let plan = TypingModel(keyDelay: .milliseconds(5) ... .milliseconds(5), submitRate: 1).plan(typing: "knife", random: &random)
        XCTAssertEqual(plan.submitDelay, 5_000_000)
        XCTAssertEqual(plan.requestCount, plan.keystrokes.count + 1)
    }

    func testCatalogSourcePicksByWeight() {
        let entries = [CatalogEntry(id: "a", title: "popular", weight: 899), CatalogEntry(id: "b", title: "rare", weight: 99)]
        let source = TextSource(entries: entries)
        var random = SplitMix64(seed: 1)
        let picks = (0..<10_000).map { _ in source.pick(&random) }
        let popular = picks.filter { $0 == "popular" }.count
        // Expected 9,000 (weights + 1: 900 vs 100); a generous band, the seed is fixed anyway.
        XCTAssertTrue((8_500...9_500).contains(popular), "\(popular)")
    }

    func testQueryLogParsingNamesBadLines() {
        var bytes = Array("red shoes\r\n\n  \nkitchen towel\n".utf8)
        bytes += [0xFF, 0xFE, 0x0A]                                   // line 5: not UTF-8
        bytes += Array(String(repeating: "x", count: 5000).utf8) + [0x0A]   // line 6: too long
        bytes += Array("garden".utf8)                                  // line 7, no final newline
        let parsed = TextSource.parseQueries(bytes)
        XCTAssertEqual(parsed.queries, ["red shoes", "kitchen towel", "garden"])
        XCTAssertEqual(parsed.errors.map(\.line), [5, 6])
        XCTAssertEqual(parsed.errors.first?.description, "line 5: invalid UTF-8")
        XCTAssertTrue(parsed.errors.last?.reason.contains("over the API's limit of 4096") ?? false)
    }

    func testQueryFileErrors() throws {
        let directory = NSTemporaryDirectory() + "load-workload-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bad = directory + "/bad.txt"
        try Data([0x61, 0x0A, 0xC3, 0x28, 0x0A]).write(to: URL(fileURLWithPath: bad))
        XCTAssertThrowsError(try TextSource.queries(path: bad)) { error in
            XCTAssertEqual((error as? LoadError)?.kind, .workload)
            XCTAssertTrue("\(error)".contains("line 2: invalid UTF-8"), "\(error)")
        }
        let blank = directory + "/blank.txt"
        try Data("\n \n".utf8).write(to: URL(fileURLWithPath: blank))
        XCTAssertThrowsError(try TextSource.queries(path: blank)) { XCTAssertTrue("\($0)".contains("no queries"), "\($0)") }
        XCTAssertThrowsError(try TextSource.queries(path: directory + "/missing.txt")) { XCTAssertTrue("\($0)".contains("does not exist")) }
        let catalog = directory + "/catalog.jsonl"
        try Data("{\"id\":\"a\",\"title\":\"A\"}\n{\"title\":\"no id\"}\n".utf8).write(to: URL(fileURLWithPath: catalog))
        XCTAssertThrowsError(try TextSource.catalog(path: catalog)) { error in
            XCTAssertTrue("\(error)".contains("line 2: missing required field \"id\""), "\(error)")
        }
    }

    func testArrivalGaps() {
        var random = SplitMix64(seed: 2)
        let uniform = ArrivalProcess(rate: 50, kind: .uniform)
        XCTAssertEqual(uniform.nextGap(&random), 20_000_000)
        let poisson = ArrivalProcess(rate: 50, kind: .poisson)
        let gaps = (0..<20_000).map { _ in Double(poisson.nextGap(&random)) }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        XCTAssertEqual(mean, 20_000_000, accuracy: 1_000_000)
        // Exponential: the standard deviation equals the mean.
        let deviation = (gaps.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(gaps.count)).squareRoot()
        XCTAssertEqual(deviation, mean, accuracy: mean * 0.1)
    }

    func testPrefixLengthBuckets() {
        XCTAssertEqual((0...14).map { PrefixLengthBucket(length: $0).label },
                       ["0", "1", "2", "3", "4-5", "4-5", "6-8", "6-8", "6-8", "9-12", "9-12", "9-12", "9-12", "13+", "13+"])
    }

    func testConfigurationRefusesAbsurdValues() {
        func message(_ change: (inout LoadConfiguration) -> Void) -> String? {
            var configuration = LoadConfiguration(host: "127.0.0.1", port: 7700, mode: .openLoop(.sessions(10), .poisson))
            change(&configuration)
            do { try configuration.validate(); return nil } catch { return error.message }
        }
        XCTAssertNil(message { _ in })
        XCTAssertEqual(message { $0.connections = 0 }, "--connections must be 1...10000, got 0")
        XCTAssertEqual(message { $0.mode = .openLoop(.sessions(0), .poisson) }, "--rate must be above 0 and at most 1000000 sessions/s, got 0.0")
        XCTAssertEqual(message { $0.mode = .closedLoop(streamsPerConnection: 0) }, "--streams must be 1...1000, got 0")
        XCTAssertEqual(message { $0.typing.typoRate = 1.5 }, "--typo-rate must be a probability from 0 to 1, got 1.5")
        XCTAssertEqual(message { $0.port = 0 }, "--target port must be 1...65535, got 0")
        XCTAssertNotNil(message { $0.duration = .zero })
        XCTAssertNotNil(message { $0.typing.keyDelay = .seconds(1) ... .seconds(100) })
        XCTAssertNotNil(message { $0.typing.maximumLength = 0 })
        for text in [message { $0.connections = 0 }, message { $0.duration = .seconds(-1) }] {
            XCTAssertFalse(text?.contains("\n") ?? true, "one line")
        }
    }
}
