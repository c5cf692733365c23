import Foundation
import TestSupport
import XCTest

/// Drives the built `typeahead` binary as a person or a script would.
final class CommandLineTests: XCTestCase {
    typealias Run = TypeaheadExecutable.Run

    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil) throws -> Run {
        try TypeaheadExecutable.run(arguments, stdin: stdin)
    }

    var directory: String!

    override func setUpWithError() throws {
        guard TypeaheadExecutable.isBuilt else {
            throw XCTSkip("typeahead binary not built next to the tests")
        }
        directory = NSTemporaryDirectory() + "typeahead-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    let good = """
    {"id":"1","title":"Red Running Shoes","categories":["Shoes"],"weight":50}
    {"id":"2","title":"Red Shirt","category":"Clothing","weight":80}
    {"id":"3","title":"Garden Hose","category":"Garden","weight":10,"attributes":{"price":"9.90"}}

    """

    /// What CSV exports and database dumps write (a byte-order mark, CRLF, blank optional fields,
    /// numbers as strings, numeric attributes) is indexed as meant, with one warning per kind.
    func testRealWorldCatalogsIndexWithWarnings() throws {
        let lines = [
            #"{"id":"1","title":"Red Running Shoes","category":"","weight":"50","attributes":{"price":19.90}}"#,
            #"{"id":"2","title":"Red Shirt","categories":["Clothing",""],"aliases":[""],"description":"","weight":""}"#,
        ]
        let catalog = try write("export.jsonl", "\u{FEFF}" + lines.joined(separator: "\r\n") + "\r\n")
        let shard = directory + "/shard"
        let indexed = try run(["index", "--catalog", catalog, "--dir", shard])
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        XCTAssertTrue(indexed.stdout.contains("indexed 2 entries"), indexed.stdout)
        for warning in [#"1 line has "category": "" (read as no category): line 1"#,
                        #"1 line has "weight" as a string (read as the number): line 1"#,
                        #"1 line has number or boolean attribute values (read as their JSON text): line 1"#,
                        #"1 line has "" in "categories" (left out): line 2"#] {
            XCTAssertTrue(indexed.stderr.contains("typeahead index: warning: " + warning), indexed.stderr)
        }
        let suggested = try run(["suggest", "--dir", shard, "--json", "red run"])
        XCTAssertEqual(suggested.status, 0, suggested.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(suggested.stdout.utf8)) as? [String: Any])
        let first = try XCTUnwrap((json["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["weight"] as? Int, 50)
        XCTAssertEqual(first["attributes"] as? [String: String], ["price": "19.90"])
        XCTAssertEqual(first["categories"] as? [String], [])
    }

    /// The same export through standard input, with CRLF and no newline after the last line: the
    /// mark and the CRs are the reader's, not the file's, so they go the same way.
    func testRealWorldCatalogThroughStandardInput() throws {
        let lines = [
            #"{"id":"1","title":"Red Running Shoes","category":"","weight":"1e2"}"#,
            #"{"id":"2","title":"Red Shirt","aliases":["",""],"description":"","attributes":{}}"#,
            #"{"id":"3","title":"Red Cap","category":"","weight":""}"#,
        ]
        let shard = directory + "/shard"
        let indexed = try run(["index", "--catalog", "-", "--dir", shard], stdin: "\u{FEFF}" + lines.joined(separator: "\r\n"))
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        XCTAssertTrue(indexed.stdout.contains("indexed 3 entries"), indexed.stdout)
        let warnings = indexed.stderr.split(separator: "\n").filter { $0.contains("warning:") }
        XCTAssertEqual(warnings, [
            #"typeahead index: warning: 2 lines have "category": "" (read as no category): lines 1, 3"#,
            #"typeahead index: warning: 1 line has "" in "aliases" (left out): line 2"#,
            #"typeahead index: warning: 1 line has "description": "" (read as no description): line 2"#,
            #"typeahead index: warning: 1 line has "weight": "" (read as weight 0): line 3"#,
            #"typeahead index: warning: 1 line has "weight" as a string (read as the number): line 1"#,
        ], "one line per kind, with its count and lines")
        let suggested = try run(["suggest", "--dir", shard, "--json", "red cap"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(suggested.stdout.utf8)) as? [String: Any])
        let first = try XCTUnwrap((json["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["title"] as? String, "Red Cap", "the last line, without its newline, is read whole")
    }

    /// Wrong types and oversized values stay errors next to blanks, which stay warnings: the
    /// catalog is refused with every bad line's number, and a new shard gets no generation at all.
    func testStrictErrorsAmongBlanksIndexNothing() throws {
        let lines = [
            #"{"id":"1","title":"Red Running Shoes","category":""}"#,
            #"{"id":"2","title":"Red Shirt","category":["Clothing"]}"#,
            #"{"id":"3","title":"Red Cap","weight":"1.5"}"#,
            #"{"id":"4","title":"\#(String(repeating: "x", count: 1025))"}"#,
            #"{"id":"","title":"Red Sock"}"#,
        ]
        let shard = directory + "/shard"
        let refused = try run(["index", "--catalog", try write("mixed.jsonl", lines.joined(separator: "\r\n") + "\r\n"), "--dir", shard])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        for expected in [#"line 2: field "category": expected a non-empty string, got an array"#,
                         #"line 3: field "weight": expected a non-negative integer (or a string holding one), got "1.5""#,
                         #"line 4: field "title": expected at most 1024 UTF-8 bytes, got 1025"#,
                         #"line 5: field "id": expected a non-empty string, got """#] {
            XCTAssertTrue(refused.stderr.contains(expected), "\(expected) in \(refused.stderr)")
        }
        XCTAssertFalse(refused.stderr.contains("line 1:"), refused.stderr)
        let asked = try run(["suggest", "--dir", shard, "--json", "red"])
        XCTAssertFalse(asked.stdout.contains("Red Running Shoes"), asked.stdout + asked.stderr)
        XCTAssertNotEqual(asked.status, 0, "no generation was built: \(asked.stdout)")
    }

    func testIndexAndSuggestAsJSON() throws {
        let catalog = try write("good.jsonl", good)
        let shard = directory + "/shard"
        let indexed = try run(["index", "--catalog", catalog, "--dir", shard])
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        XCTAssertTrue(indexed.stdout.contains("indexed 3 entries"), indexed.stdout)

        let suggested = try run(["suggest", "--dir", shard, "--json", "red sh"])
        XCTAssertEqual(suggested.status, 0, suggested.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(suggested.stdout.utf8)) as? [String: Any])
        let entries = try XCTUnwrap(json["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["id"] as? String }, ["2", "1"])
        XCTAssertEqual(entries.first?["weight"] as? Int, 80)
        XCTAssertEqual(entries.first?["completion"] as? String, "Red Shirt")
        let highlights = try XCTUnwrap(entries.first?["highlights"] as? [[String: Int]])
        XCTAssertEqual(highlights, [["start": 0, "end": 3], ["start": 4, "end": 9]])
        let categories = try XCTUnwrap(json["categories"] as? [[String: Any]])
        XCTAssertEqual(categories.first?["name"] as? String, "Shoes")
        XCTAssertEqual(categories.first?["replacementText"] as? String, "red ")
        XCTAssertEqual((categories.first?["token"] as? [String: String]) ?? [:], ["kind": "category", "value": "Shoes"])
        let completions = try XCTUnwrap(json["completions"] as? [[String: String]])
        XCTAssertEqual(completions.map { $0["text"] }, ["red Shirt", "red Shoes"])

        let searched = try run(["search", "--dir", shard, "--json", "--page-size", "1", "red"])
        let page = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(searched.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(page["totalHits"] as? Int, 2)
        let token = try XCTUnwrap(page["nextPageToken"] as? String)
        XCTAssertFalse(token.isEmpty)
        let second = try run(["search", "--dir", shard, "--json", "--page-size", "1", "--page-token", token, "red"])
        let next = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((next["hits"] as? [[String: Any]])?.first?["id"] as? String, "1")
        XCTAssertEqual(next["nextPageToken"] as? String, "")
    }

    /// `index --filterable` declares attribute tokens: `--token ATTRIBUTE=VALUE` filters by one,
    /// its values are chips, an undeclared kind and a bad declaration are refused.
    func testIndexWithFilterableAttributes() throws {
        let catalog = try write("attributes.jsonl", """
            {"id":"1","title":"Red Running Shoes","categories":["Shoes"],"weight":50,"attributes":{"color":"Red"}}
            {"id":"2","title":"Blue Shirt","category":"Clothing","weight":80,"attributes":{"color":"Blue"}}
            {"id":"3","title":"Reading Lamp","category":"Lamps","weight":10,"attributes":{"color":"Red"}}

            """)
        let shard = directory + "/shard"
        let indexed = try run(["index", "--catalog", catalog, "--dir", shard, "--filterable", "color"])
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        let searched = try run(["search", "--dir", shard, "--json", "--token", "color=Red", ""])
        XCTAssertEqual(searched.status, 0, searched.stderr)
        let page = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(searched.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(page["totalHits"] as? Int, 2)
        let suggested = try run(["suggest", "--dir", shard, "--json", "--categories", "5", "re"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(suggested.stdout.utf8)) as? [String: Any])
        let chips = try XCTUnwrap(json["categories"] as? [[String: Any]])
        XCTAssertEqual(chips.first?["token"] as? [String: String], ["kind": "color", "value": "Red"])
        XCTAssertEqual(chips.first?["count"] as? Int, 2)
        let refused = try run(["search", "--dir", shard, "--token", "size=m", ""])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("\"size\" is not a token kind of this collection"), refused.stderr)
        let bad = try run(["index", "--catalog", catalog, "--dir", directory + "/other", "--filterable", "category"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("\"category\" is reserved"), bad.stderr)
    }

    /// `--shard I --shards N` indexes exactly the entries the shard assignment places in shard I
    /// (as `shard-of` prints it), filtered as the catalog is read and indexed.
    func testIndexKeepsItsShardsEntries() throws {
        let lines = (0..<3_000).map { #"{"id":"p\#($0)","title":"Part \#($0) widget","weight":\#($0 % 97)}"# }
        let catalog = try write("parts.jsonl", lines.joined(separator: "\n") + "\n")
        let ids = (0..<3_000).map { "p\($0)" }
        let placed = try run(["shard-of", "--shards", "2"] + ids).stdout.split(separator: "\n").map { $0.split(separator: "\t") }
        var counted = 0
        for shard in 0..<2 {
            let indexed = try run(["index", "--catalog", catalog, "--dir", directory + "/s\(shard)", "--shard", "\(shard)", "--shards", "2"])
            XCTAssertEqual(indexed.status, 0, indexed.stderr)
            let expected = placed.filter { $0[0] == "\(shard)" }.map { String($0[1]) }
            XCTAssertTrue(indexed.stdout.contains("indexed \(expected.count) entries"), indexed.stdout)
            XCTAssertTrue(indexed.stdout.contains("peak memory"), indexed.stdout)
            counted += expected.count
            let first = try run(["suggest", "--dir", directory + "/s\(shard)", "--json", "part \(expected[0].dropFirst()) "]).stdout
            XCTAssertTrue(first.contains("\"\(expected[0])\""), first)
            let elsewhere = try XCTUnwrap(placed.first { $0[0] != "\(shard)" }.map { String($0[1]) })
            let missing = try run(["suggest", "--dir", directory + "/s\(shard)", "--json", "part \(elsewhere.dropFirst()) "]).stdout
            XCTAssertFalse(missing.contains("\"\(elsewhere)\""), missing)
        }
        XCTAssertEqual(counted, 3_000)
    }

    func testBadCatalogIsRefusedWithLineNumbersAndTheServingIndexIsUntouched() throws {
        let shard = directory + "/shard"
        XCTAssertEqual(try run(["index", "--catalog", try write("good.jsonl", good), "--dir", shard]).status, 0)

        let bad = """
        {"id":"9","title":"Blue Shoes","weight":5}
        {"id":"10","title":"Green Shoes","weight":-1}
        {"title":"No Id"}
        not json
        {"id":"9","title":"Again"}

        """
        let refused = try run(["index", "--catalog", try write("bad.jsonl", bad), "--dir", shard])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("line 2:"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("line 3:") && refused.stderr.contains("\"id\""), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("line 4:"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("line 5:") && refused.stderr.contains("duplicate id"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("current generation keeps serving"), refused.stderr)
        XCTAssertTrue(try run(["suggest", "--dir", shard, "--json", "red"]).stdout.contains("Red Shirt"))
        XCTAssertFalse(try run(["suggest", "--dir", shard, "--json", "blue"]).stdout.contains("Blue Shoes"))

        let skipped = try run(["index", "--catalog", try write("bad2.jsonl", bad), "--dir", shard, "--skip-invalid"])
        XCTAssertEqual(skipped.status, 0, skipped.stderr)
        XCTAssertTrue(skipped.stdout.contains("skipped 4 invalid lines"), skipped.stdout)
        XCTAssertTrue(try run(["suggest", "--dir", shard, "--json", "blue"]).stdout.contains("Blue Shoes"))
    }

    /// `typeahead index` says where it stands on standard error: the catalog read (lines, lines/s,
    /// bytes; a bar, a percentage and an ETA when the size is known), then each build stage as it
    /// ends. Plain lines off a terminal; nothing with `--progress none`.
    func testIndexShowsWhereItStands() throws {
        let catalog = try write("good.jsonl", good)
        let plain = try run(["index", "--catalog", catalog, "--dir", directory + "/a", "--progress", "plain"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let reading = plain.stderr.split(separator: "\n").filter { $0.hasPrefix("reading  [") }
        XCTAssertTrue(reading.last?.contains("100%") == true && reading.last?.contains("ETA 0:00") == true, plain.stderr)
        XCTAssertTrue(reading.last?.contains("lines/s") == true, plain.stderr)
        for stage in ["analyse", "write documents", "commit", "sync"] {
            XCTAssertTrue(plain.stderr.contains("building: \(stage) "), "\(stage) in \(plain.stderr)")
        }
        let piped = try run(["index", "--catalog", "-", "--dir", directory + "/b", "--progress", "plain"], stdin: good)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stderr.contains("reading  "), piped.stderr)
        let silent = try run(["index", "--catalog", catalog, "--dir", directory + "/c", "--progress", "none"])
        XCTAssertEqual(silent.status, 0, silent.stderr)
        XCTAssertFalse(silent.stderr.contains("reading") || silent.stderr.contains("building"), silent.stderr)
        let wrong = try run(["index", "--catalog", catalog, "--dir", directory + "/d", "--progress", "loud"])
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.stderr.contains("--progress must be terminal, plain or none"), wrong.stderr)
    }

    func testInvalidUTF8IsReportedWithItsLine() throws {
        let path = directory + "/utf8.jsonl"
        var bytes = Array("{\"id\":\"1\",\"title\":\"ok\"}\n{\"id\":\"2\",\"title\":\"bad ".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\"}\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let refused = try run(["index", "--catalog", path, "--dir", directory + "/shard"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("line 2: invalid UTF-8"), refused.stderr)
    }

    func testStandardInputUpsertAndDelete() throws {
        let shard = directory + "/shard"
        let indexed = try run(["index", "--catalog", "-", "--dir", shard], stdin: good)
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        let upsert = try write("up.jsonl", "{\"id\":\"3\",\"title\":\"Garden Bench\",\"category\":\"Garden\",\"weight\":99}\n")
        let upserted = try run(["upsert", "--dir", shard, upsert])
        XCTAssertEqual(upserted.status, 0, upserted.stderr)
        XCTAssertTrue(upserted.stdout.contains("0 new, 1 replaced"), upserted.stdout)
        let after = try run(["suggest", "--dir", shard, "--json", "gard"])
        XCTAssertTrue(after.stdout.contains("Garden Bench") && !after.stdout.contains("Garden Hose"), after.stdout)
        let deleted = try run(["delete", "--dir", shard, "3", "404"])
        XCTAssertEqual(deleted.status, 0)
        XCTAssertTrue(deleted.stdout.contains("deleted 1 entries; 1 ids did not exist"), deleted.stdout)
        XCTAssertFalse(try run(["suggest", "--dir", shard, "--json", "gard"]).stdout.contains("Garden Bench"))
    }

    /// One rule for every source of an admin token: a short one in the environment is refused as a
    /// short token file is, before the node serves anything.
    func testShortAdminTokensAreRefusedFromFileAndEnvironment() throws {
        let catalog = try write("good.jsonl", good)
        let shard = directory + "/shard"
        XCTAssertEqual(try run(["index", "--catalog", catalog, "--dir", shard]).status, 0)
        let short = try write("short.token", "abc\n")
        let fromFile = try run(["node", "--dir", shard, "--listen", "127.0.0.1:0", "--admin-token-file", short])
        XCTAssertEqual(fromFile.status, 1, fromFile.output)
        XCTAssertTrue(fromFile.stderr.contains("shorter than 16 characters"), fromFile.stderr)
        var environment = ProcessInfo.processInfo.environment
        environment["TYPEAHEAD_ADMIN_TOKEN"] = "x"
        let fromEnvironment = try ChildRun.run(TypeaheadExecutable.url.path, ["node", "--dir", shard, "--listen", "127.0.0.1:0"],
                                               environment: environment, timeout: 60)
        XCTAssertEqual(fromEnvironment.status, 1, fromEnvironment.output)
        XCTAssertTrue(fromEnvironment.stderr.contains("TYPEAHEAD_ADMIN_TOKEN is shorter than 16 characters"), fromEnvironment.stderr)
    }

    /// Updates refuse what can name no entry and a shard that is not there, changing nothing.
    func testUpdatesRefuseImpossibleIdsAndMissingShards() throws {
        let catalog = try write("good.jsonl", good)
        let shard = directory + "/shard"
        XCTAssertEqual(try run(["index", "--catalog", catalog, "--dir", shard]).status, 0)
        for id in ["", String(repeating: "x", count: 300)] {
            let deleted = try run(["delete", "--dir", shard, "1", id])
            XCTAssertEqual(deleted.status, 1, deleted.output)
            XCTAssertTrue(deleted.stderr.contains("must be 1 to 256 bytes"), deleted.stderr)
        }
        let suggested = try run(["suggest", "--dir", shard, "--json", "red sh"])
        XCTAssertTrue(suggested.stdout.contains(#""id":"1""#), "nothing was deleted: \(suggested.stdout)")

        let missing = directory + "/no-such-shard"
        let upserted = try run(["upsert", "--dir", missing, catalog])
        XCTAssertEqual(upserted.status, 1, upserted.output)
        XCTAssertTrue(upserted.stderr.contains("no shard at \(missing)"), upserted.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
        XCTAssertEqual(try run(["delete", "--dir", missing, "1"]).status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }

    func testUsageErrorsAreOneLineAndNonZero() throws {
        for arguments in [["suggest", "--dir", directory!, "--bogus", "x"], ["suggest", "--dir", directory!, "--limit", "1000", "x"],
                          ["suggest", "--dir", directory!, "--typos", "maybe", "x"], ["search", "--page-size"],
                          ["frobnicate"], ["index", "--dir", directory!], ["suggest", "--dir", directory!, "--token", "colour", "x"]] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("typeahead"), result.stderr)
        }
        for command in ["index", "suggest", "search", "upsert", "delete", "bench"] {
            let help = try run([command, "--help"])
            XCTAssertEqual(help.status, 0, command)
            XCTAssertTrue(help.stdout.contains("usage: typeahead \(command)"), command)
        }
    }
}
