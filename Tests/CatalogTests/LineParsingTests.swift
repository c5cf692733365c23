import Foundation
@testable import Catalog
import XCTest

/// The reason `text` is rejected, or nil if it parses (or is blank).
func rejection(_ text: String, line: Int = 1, limits: CatalogLimits = .init()) -> String? {
    rejection(Array(text.utf8), line: line, limits: limits)
}

func rejection(_ bytes: [UInt8], line: Int = 1, limits: CatalogLimits = .init()) -> String? {
    guard case .failure(let error)? = parseCatalogLine(bytes, line: line, limits: limits) else { return nil }
    XCTAssertEqual(error.line, line)
    return error.reason
}

/// The entry `text` parses to; fails the test otherwise.
func entry(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> CatalogEntry? {
    switch parseCatalogLine(text.utf8, line: 1) {
    case .success(let entry)?: return entry
    case .failure(let error)?:
        XCTFail("unexpected error: \(error)", file: file, line: line)
        return nil
    case nil:
        XCTFail("unexpectedly blank", file: file, line: line)
        return nil
    }
}

final class LineParsingTests: XCTestCase {
    func testFullLine() {
        let line = #"{"id":"12","title":"Takht-e Qeyşar","category":"Iran","weight":1266,"aliases":["Takht-e Azadi","Takht-e Qeysar","Takht-e Āzādī","tkht qysr","تخت قیصر"],"attributes":{"country_code":"IR","admin1":"15","lat":"32.05908","lon":"48.86752"}}"#
        XCTAssertEqual(entry(line), CatalogEntry(
            id: "12", title: "Takht-e Qeyşar", categories: ["Iran"], weight: 1266,
            aliases: ["Takht-e Azadi", "Takht-e Qeysar", "Takht-e Āzādī", "tkht qysr", "تخت قیصر"],
            attributes: ["country_code": "IR", "admin1": "15", "lat": "32.05908", "lon": "48.86752"]))
    }

    func testMinimalLineAndDefaults() {
        XCTAssertEqual(entry(#"  {"id":"a","title":"b"}  "#), CatalogEntry(id: "a", title: "b"))
        XCTAssertEqual(entry(#"{"title":"b","id":"a","description":"d"}"#)?.description, "d")
    }

    func testEscapesAreDecoded() {
        XCTAssertEqual(
            entry(#"{"id":"\u0041\n","title":"caf\u00e9 \"x\" \\ \ud83d\ude00 \t"}"#),
            CatalogEntry(id: "A\n", title: "café \"x\" \\ 😀 \t"))
    }

    func testBlankLines() {
        XCTAssertNil(parseCatalogLine([UInt8](), line: 1))
        XCTAssertNil(parseCatalogLine(" \t \r".utf8, line: 1))
        XCTAssertNil(parseCatalogLine("\r\n".utf8, line: 1))
    }

    func testCarriageReturnAndNewlineAreTolerated() {
        XCTAssertEqual(entry("{\"id\":\"a\",\"title\":\"b\"}\r\n"), CatalogEntry(id: "a", title: "b"))
        XCTAssertEqual(entry("{\"id\":\"a\",\"title\":\"b\"}\r"), CatalogEntry(id: "a", title: "b"))
    }

    func testAnyCollectionOfBytes() {
        let bytes = Array(#"xx{"id":"a","title":"b"}"#.utf8)
        guard case .success(let fromSlice)? = parseCatalogLine(bytes[2...], line: 1) else { return XCTFail() }
        XCTAssertEqual(fromSlice.id, "a")
        // A non-contiguous collection is copied once.
        guard case .success(let fromLazy)? = parseCatalogLine(bytes.dropFirst(2).lazy.map { $0 }, line: 1) else {
            return XCTFail()
        }
        XCTAssertEqual(fromLazy.title, "b")
    }

    // MARK: - Syntax

    func testInvalidJSON() {
        XCTAssertEqual(
            rejection(#"{"id":"a" "title":"b"}"#, line: 3),
            #"invalid JSON: parse error: after key and value, inside map, I expect ',' or '}' (near byte 13)"#)
        XCTAssertEqual(
            rejection(#"{"id":"a",,"title":"b"}"#),
            "invalid JSON: parse error: invalid object key (must be a string) (near byte 12)")
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b"} x"#),
            "invalid JSON: lexical error: invalid char in json text (near byte 25)")
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b\q"}"#),
            #"invalid JSON: lexical error: inside a string, '\' occurs before a character which it may not (near byte 22)"#)
        XCTAssertEqual(
            rejection("{\"id\":\"a\",\"title\":\"tab\there\"}"),
            "invalid JSON: lexical error: invalid character inside string (near byte 23)")
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","weight":01}"#),
            #"invalid JSON: parse error: after key and value, inside map, I expect ',' or '}' (near byte 33)"#)
    }

    func testTruncatedObject() {
        let truncated = "invalid JSON: parse error: premature EOF (at end of line); is the line cut short?"
        XCTAssertEqual(rejection(#"{"id":"a","title":"b""#, line: 5), truncated)
        XCTAssertEqual(rejection(#"{"id":"a","title":"#), truncated)
        XCTAssertEqual(rejection(#"{"id":"a","ti"#), truncated)
        XCTAssertEqual(rejection("{"), truncated)
    }

    func testParserRecoversAfterErrors() {
        // The reader reuses one yajl handle; after an error it must start clean.
        let lines = [
            #"{"id":"a","title":"b""#, #"{"id":"c","title":"d"}"#, "[1]", #"{"id":"e","title":"f"}"#,
            #"{"id":"g","title":"h"} {"#, #"{"id":"i","title":"j"}"#, #"{"id":"k","title":"l","weight":-1}"#,
            #"{"id":"m","title":"n","weight":5}"#,
        ]
        let reader = CatalogReader(bytes: Array(lines.joined(separator: "\n").utf8))
        var ids: [String] = []
        var errorLines: [Int] = []
        while let result = try! reader.next() {
            switch result {
            case .success(let entry): ids.append(entry.id)
            case .failure(let error): errorLines.append(error.line)
            }
        }
        XCTAssertEqual(ids, ["c", "e", "i", "m"])
        XCTAssertEqual(errorLines, [1, 3, 5, 7])
    }

    func testInvalidUTF8InsideString() {
        var bytes = Array(#"{"id":"a","title":"b"#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(#""}"#.utf8)
        XCTAssertEqual(rejection(bytes, line: 4), "invalid UTF-8 at byte 21")
    }

    func testInvalidUTF8OutsideString() {
        var bytes = Array(#"{"id":"a","#.utf8)
        bytes.append(0xFF)
        bytes += Array(#""title":"b"}"#.utf8)
        XCTAssertEqual(rejection(bytes), "invalid UTF-8 at byte 11")
    }

    func testInvalidUTF8Forms() {
        let prefix = Array(#"{"id":"a","title":""#.utf8)  // 19 bytes
        let suffix = Array(#""}"#.utf8)
        for bad: [UInt8] in [
            [0xC0, 0xAF],              // overlong "/"
            [0xE0, 0x80, 0xAF],        // overlong 3-byte
            [0xED, 0xA0, 0x80],        // UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xE2, 0x82],              // truncated
            [0x80],                    // lone continuation
        ] {
            XCTAssertEqual(rejection(prefix + bad + suffix), "invalid UTF-8 at byte 20", "\(bad)")
        }
        // Valid multi-byte forms after a long ASCII run (exercises the 8-byte fast path).
        XCTAssertNil(rejection(#"{"id":"aaaaaaaaaaaaaaaaaaaaaaaa","title":"é€𐍈 ok"}"#))
        XCTAssertEqual(rejection(Array(#"{"id":"aaaaaaaaaaaaaaaaaaaaaaaa","title":"x"#.utf8) + [0xFE] + suffix),
                       "invalid UTF-8 at byte 44")
    }

    func testUnpairedSurrogateEscape() {
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"x\udc00"}"#),
            #"field "title": string has a \u escape of an unpaired UTF-16 surrogate (\uD800 to \uDFFF); escape characters above U+FFFF as a surrogate pair or write them as UTF-8"#)
    }

    func testTopLevelMustBeOneObject() {
        XCTAssertEqual(rejection("[1,2]"), "expected a JSON object, got an array")
        XCTAssertEqual(rejection(#""just a string""#), #"expected a JSON object, got "just a string""#)
        XCTAssertEqual(rejection("42"), "expected a JSON object, got 42")
        XCTAssertEqual(rejection("null"), "expected a JSON object, got null")
        let second = "expected one JSON object per line, got a second value after it"
        XCTAssertEqual(rejection(#"{"id":"a","title":"b"}{"id":"c","title":"d"}"#), second)
        XCTAssertEqual(rejection(#"{"id":"a","title":"b"} {"id":"c","title":"d"}"#), second)
        XCTAssertEqual(rejection(#"{"id":"a","title":"b"} []"#), second)
        XCTAssertEqual(rejection(#"{"id":"a","title":"b"} 12"#), second)
        XCTAssertEqual(rejection(#"{"id":"a","title":"b"} "x""#), second)
    }

    // MARK: - Required fields

    func testMissingRequiredFields() {
        XCTAssertEqual(rejection(#"{"title":"b"}"#, line: 2), #"missing required field "id""#)
        XCTAssertEqual(rejection(#"{"id":"a"}"#), #"missing required field "title""#)
        XCTAssertEqual(rejection("{}"), #"missing required field "id""#)
    }

    func testEmptyIdAndTitle() {
        XCTAssertEqual(rejection(#"{"id":"","title":"b"}"#), #"field "id": expected a non-empty string, got """#)
        XCTAssertEqual(rejection(#"{"id":"a","title":""}"#), #"field "title": expected a non-blank string, got """#)
        // Unicode white space counts as blank too: here a no-break space and an ideographic space.
        XCTAssertEqual(rejection(#"{"id":"a","title":" \t\u00a0\u3000"}"#),
                       "field \"title\": expected a non-blank string, got \" \\t\u{a0}\u{3000}\"")
        XCTAssertEqual(entry(#"{"id":" ","title":" x "}"#)?.title, " x ")  // kept as written
    }

    func testDuplicateField() {
        XCTAssertEqual(rejection(#"{"id":"a","title":"b","id":"c"}"#), #"duplicate field "id"; give each field once"#)
        XCTAssertEqual(rejection(#"{"id":"a","title":"b","weight":1,"weight":2}"#),
                       #"duplicate field "weight"; give each field once"#)
    }

    // MARK: - Types

    func testWrongTypes() {
        let cases: [(String, String)] = [
            (#""id":5,"title":"b""#, #"field "id": expected a non-empty string, got 5"#),
            (#""id":["a"],"title":"b""#, #"field "id": expected a non-empty string, got an array"#),
            (#""id":"a","title":true"#, #"field "title": expected a non-blank string, got true"#),
            (#""id":"a","title":{"en":"b"}"#, #"field "title": expected a non-blank string, got an object"#),
            (#""id":"a","title":"b","category":["x"]"#, #"field "category": expected a non-empty string, got an array"#),
            (#""id":"a","title":"b","categories":"Shoes""#, #"field "categories": expected an array of strings, got "Shoes""#),
            (#""id":"a","title":"b","categories":["x",1]"#, #"field "categories"[1]: expected a string, got 1"#),
            (#""id":"a","title":"b","weight":"12a""#, #"field "weight": expected a non-negative integer (or a string holding one), got "12a""#),
            (#""id":"a","title":"b","weight":"-3""#, #"field "weight": expected a non-negative integer (or a string holding one), got "-3""#),
            (#""id":"a","title":"b","weight":" 12""#, #"field "weight": expected a non-negative integer (or a string holding one), got " 12""#),
            (#""id":"a","title":"b","weight":"+12""#, #"field "weight": expected a non-negative integer (or a string holding one), got "+12""#),
            (#""id":"a","title":"b","weight":"012""#, #"field "weight": expected a non-negative integer (or a string holding one), got "012""#),
            (#""id":"a","title":"b","weight":"1.5""#, #"field "weight": expected a non-negative integer (or a string holding one), got "1.5""#),
            (#""id":"a","title":"b","weight":"1e16""#, #"field "weight": expected a non-negative integer of at most 9007199254740991, got "1e16""#),
            (#""id":"a","title":"b","weight":{}"#, #"field "weight": expected a non-negative integer (or a string holding one), got an object"#),
            (#""id":"a","title":"b","categories":[["x"]]"#, #"field "categories"[0]: expected a non-empty string, got an array"#),
            (#""id":"a","title":"b","weight":true"#, #"field "weight": expected a non-negative integer (or a string holding one), got true"#),
            (#""id":"a","title":"b","weight":[1]"#, #"field "weight": expected a non-negative integer (or a string holding one), got an array"#),
            (#""id":"a","title":"b","aliases":{}"#, #"field "aliases": expected an array of strings, got an object"#),
            (#""id":"a","title":"b","aliases":"x""#, #"field "aliases": expected an array of strings, got "x""#),
            (#""id":"a","title":"b","aliases":["x",null]"#, #"field "aliases"[1]: expected a string, got null"#),
            (#""id":"a","title":"b","aliases":["x",{}]"#, #"field "aliases"[1]: expected a string, got an object"#),
            (#""id":"a","title":"b","description":3"#, #"field "description": expected a string, got 3"#),
            (#""id":"a","title":"b","description":["d"]"#, #"field "description": expected a string, got an array"#),
            (#""id":"a","title":"b","attributes":[]"#, #"field "attributes": expected an object with string, number or boolean values, got an array"#),
            (#""id":"a","title":"b","attributes":"p""#, #"field "attributes": expected an object with string, number or boolean values, got "p""#),
            (#""id":"a","title":"b","attributes":{"k":{"x":"y"}}"#, #"field "attributes"["k"]: expected a string, got an object"#),
        ]
        for (fields, reason) in cases {
            XCTAssertEqual(rejection("{\(fields)}"), reason, fields)
        }
    }

    func testLongValuesAreCutInMessages() {
        let long = String(repeating: "é", count: 30)  // 60 bytes: cut at a character boundary
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","weight":"\#(long)"}"#),
            #"field "weight": expected a non-negative integer (or a string holding one), got "\#(String(repeating: "é", count: 20))…""#)
    }

    // MARK: - Real-world values

    /// Blank optional fields are absent, and values written as CSV converters write them are read
    /// as meant; each kind is noted so that a build can say so (see `CatalogNotices`).
    func testBlankOptionalFieldsAndTextValuesAreReadAsMeant() {
        func read(_ fields: String) -> (CatalogEntry, CatalogNotices)? {
            let parser = JSONLineParser(limits: CatalogLimits())
            let text = Array("{\(fields)}".utf8)
            guard case .entry(let entry, _, let notices) = text.withUnsafeBufferPointer({ parser.parse($0) }) else { return nil }
            return (entry, notices)
        }
        let cases: [(String, CatalogEntry, CatalogNotices)] = [
            (#""id":"a","title":"b","category":"""#, CatalogEntry(id: "a", title: "b"), .blankCategory),
            (#""id":"a","title":"b","category":"","categories":["x"]"#, CatalogEntry(id: "a", title: "b", categories: ["x"]), .blankCategory),
            (#""id":"a","title":"b","categories":["x","","y"]"#, CatalogEntry(id: "a", title: "b", categories: ["x", "y"]), .blankInCategories),
            (#""id":"a","title":"b","aliases":["","z"]"#, CatalogEntry(id: "a", title: "b", aliases: ["z"]), .blankAlias),
            (#""id":"a","title":"b","description":"""#, CatalogEntry(id: "a", title: "b"), .blankDescription),
            (#""id":"a","title":"b","weight":"""#, CatalogEntry(id: "a", title: "b"), .blankWeight),
            (#""id":"a","title":"b","weight":"12""#, CatalogEntry(id: "a", title: "b", weight: 12), .weightAsText),
            // A string holding any JSON number, as the JSON API reads integer fields.
            (#""id":"a","title":"b","weight":"12.0""#, CatalogEntry(id: "a", title: "b", weight: 12), .weightAsText),
            (#""id":"a","title":"b","weight":"1e3""#, CatalogEntry(id: "a", title: "b", weight: 1000), .weightAsText),
            (#""id":"a","title":"b","attributes":{}"#, CatalogEntry(id: "a", title: "b"), []),
            (#""id":"a","title":"b","attributes":{"price":19.90,"new":true,"old":false,"n":-1e3}"#,
             CatalogEntry(id: "a", title: "b", attributes: ["price": "19.90", "new": "true", "old": "false", "n": "-1e3"]), .attributeAsText),
            (#""id":"a","title":"b","attributes":{"k":null,"j":"v"}"#, CatalogEntry(id: "a", title: "b", attributes: ["j": "v"]), .nullAttribute),
        ]
        for (fields, expected, notices) in cases {
            guard let (entry, seen) = read(fields) else { XCTFail("refused: \(fields)"); continue }
            XCTAssertEqual(entry, expected, fields)
            XCTAssertEqual(seen, notices, fields)
        }
        // Required fields stay strict.
        XCTAssertEqual(rejection(#"{"id":"","title":"b"}"#), #"field "id": expected a non-empty string, got """#)
        XCTAssertEqual(rejection(#"{"id":"a","title":" "}"#), #"field "title": expected a non-blank string, got " ""#)
    }

    /// The reader counts each kind once per line, with the first line numbers, for the warnings.
    func testTheReaderTalliesNoticesWithLineNumbers() throws {
        var lines = [#"{"id":"0","title":"t"}"#]
        for n in 1...7 { lines.append(#"{"id":"\#(n)","title":"t","category":"","aliases":["",""]}"#) }
        lines.append(#"{"id":"8","title":"t","weight":"5"}"#)
        let path = NSTemporaryDirectory() + "notices-\(UUID().uuidString).jsonl"
        try Data(("\u{FEFF}" + lines.joined(separator: "\r\n")).utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (entries, errors, summary) = try loadCatalog(path: path, policy: .strict)
        XCTAssertEqual(entries.count, 9)
        XCTAssertTrue(errors.isEmpty)
        XCTAssertEqual(summary.notices.count(.blankCategory), 7)
        XCTAssertEqual(summary.notices.count(.blankAlias), 7, "a line counts once per kind")
        XCTAssertEqual(summary.notices.warnings, [
            #"7 lines have "category": "" (read as no category): lines 2, 3, 4, 5, 6, …"#,
            #"7 lines have "" in "aliases" (left out): lines 2, 3, 4, 5, 6, …"#,
            #"1 line has "weight" as a string (read as the number): line 9"#,
        ])
    }

    // MARK: - Weight

    func testWeights() {
        func weight(_ text: String) -> UInt64? { entry(#"{"id":"a","title":"b","weight":\#(text)}"#)?.weight }
        XCTAssertEqual(weight("0"), 0)
        XCTAssertEqual(weight("1266"), 1266)
        XCTAssertEqual(weight("9007199254740991"), 9_007_199_254_740_991)
        XCTAssertEqual(weight("1e3"), 1000)
        XCTAssertEqual(weight("1E+2"), 100)
        XCTAssertEqual(weight("12.0"), 12)
        XCTAssertEqual(weight("1.5e1"), 15)
        XCTAssertEqual(weight("12500e-2"), 125)
        XCTAssertEqual(weight("-0"), 0)
        XCTAssertEqual(weight("0e999999999999"), 0)
        XCTAssertEqual(weight("null"), 0)
    }

    func testBadWeights() {
        func reason(_ text: String) -> String? { rejection(#"{"id":"a","title":"b","weight":\#(text)}"#) }
        XCTAssertEqual(reason("-3"), #"field "weight": expected a non-negative integer (or a string holding one), got -3"#)
        XCTAssertEqual(reason("1.5"), #"field "weight": expected a non-negative integer (or a string holding one), got 1.5"#)
        XCTAssertEqual(reason("1e-3"), #"field "weight": expected a non-negative integer (or a string holding one), got 1e-3"#)
        XCTAssertEqual(reason("12.50e-1"), #"field "weight": expected a non-negative integer (or a string holding one), got 12.50e-1"#)
        XCTAssertEqual(reason("-1e3"), #"field "weight": expected a non-negative integer (or a string holding one), got -1e3"#)
        let tooLarge = #"field "weight": expected a non-negative integer of at most 9007199254740991, got "#
        XCTAssertEqual(reason("9007199254740992"), tooLarge + "9007199254740992")
        XCTAssertEqual(reason("18446744073709551616"), tooLarge + "18446744073709551616")
        XCTAssertEqual(reason("1e400"), tooLarge + "1e400")
        XCTAssertEqual(reason("1e999999999999999999999"), tooLarge + "1e999999999999999999999")
        var limits = CatalogLimits()
        limits.maximumWeight = 100
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","weight":101}"#, limits: limits),
            #"field "weight": expected a non-negative integer of at most 100, got 101"#)
    }

    // MARK: - Categories, aliases, attributes

    func testCategoryAndCategories() {
        XCTAssertEqual(entry(#"{"id":"a","title":"b","category":"Shoes"}"#)?.categories, ["Shoes"])
        XCTAssertEqual(entry(#"{"id":"a","title":"b","categories":["x","y","x","z","y"]}"#)?.categories, ["x", "y", "z"])
        XCTAssertEqual(entry(#"{"id":"a","title":"b","categories":[]}"#)?.categories, [])
        let both = #"both "category" and "categories" given; use one of them"#
        XCTAssertEqual(rejection(#"{"id":"a","title":"b","category":"x","categories":["y"]}"#), both)
        XCTAssertEqual(rejection(#"{"id":"a","title":"b","categories":["y"],"category":"x"}"#), both)
        // null is absence, so these are fine.
        XCTAssertEqual(entry(#"{"id":"a","title":"b","category":null,"categories":["y"]}"#)?.categories, ["y"])
        XCTAssertEqual(entry(#"{"id":"a","title":"b","categories":null,"category":"x"}"#)?.categories, ["x"])
    }

    func testTooManyCategories() {
        let list = (0..<33).map { "\"c\($0)\"" }.joined(separator: ",")
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","categories":[\#(list)]}"#),
            #"field "categories": expected at most 32 categories, got 33; remove some (a fixed limit of the catalog format)"#)
        let ok = (0..<32).map { "\"c\($0)\"" }.joined(separator: ",")
        XCTAssertEqual(entry(#"{"id":"a","title":"b","categories":[\#(ok)]}"#)?.categories.count, 32)
    }

    func testAliases() {
        XCTAssertEqual(entry(#"{"id":"a","title":"b","aliases":["x","","y","x"]}"#)?.aliases, ["x", "y", "x"])
        var limits = CatalogLimits()
        limits.maximumAliases = 2
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","aliases":["x","y","z"]}"#, limits: limits),
            #"field "aliases": expected at most 2 aliases, got 3; remove some (a fixed limit of the catalog format)"#)
        let longAlias = String(repeating: "a", count: 1025)
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","aliases":["x","\#(longAlias)"]}"#),
            #"field "aliases"[1]: expected at most 1024 UTF-8 bytes, got 1025; shorten it (a fixed limit of the catalog format)"#)
    }

    func testAttributes() {
        XCTAssertEqual(
            entry(#"{"id":"a","title":"b","attributes":{"price":"9.99","image":"x.jpg","":""}}"#)?.attributes,
            ["price": "9.99", "image": "x.jpg", "": ""])
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","attributes":{"price":"1","price":"2"}}"#),
            #"field "attributes": duplicate key "price"; give each key once"#)
        let many = (0..<65).map { "\"k\($0)\":\"v\"" }.joined(separator: ",")
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","attributes":{\#(many)}}"#),
            #"field "attributes": expected at most 64 keys, got 65; remove some (a fixed limit of the catalog format)"#)
        let longKey = String(repeating: "k", count: 257)
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","attributes":{"\#(longKey)":"v"}}"#),
            #"field "attributes": expected keys of at most 256 UTF-8 bytes, got "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…" (257 bytes); shorten it (a fixed limit of the catalog format)"#)
        let longValue = String(repeating: "v", count: 4097)
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","attributes":{"k":"\#(longValue)"}}"#),
            #"field "attributes"["k"]: expected at most 4096 UTF-8 bytes, got 4097; shorten it (a fixed limit of the catalog format)"#)
    }

    // MARK: - Sizes

    func testOversizedFields() {
        let id257 = String(repeating: "i", count: 257)
        XCTAssertEqual(
            rejection(#"{"id":"\#(id257)","title":"b"}"#),
            #"field "id": expected at most 256 UTF-8 bytes, got 257; shorten it (a fixed limit of the catalog format)"#)
        XCTAssertNil(rejection(#"{"id":"\#(String(id257.dropLast()))","title":"b"}"#))
        // Bytes, not characters: 513 × "é" is 1026 bytes.
        let title = String(repeating: "é", count: 513)
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"\#(title)"}"#),
            #"field "title": expected at most 1024 UTF-8 bytes, got 1026; shorten it (a fixed limit of the catalog format)"#)
        let description = String(repeating: "d", count: 16385)
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","description":"\#(description)"}"#),
            #"field "description": expected at most 16384 UTF-8 bytes, got 16385; shorten it (a fixed limit of the catalog format)"#)
        let category = String(repeating: "c", count: 257)
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","category":"\#(category)"}"#),
            #"field "category": expected at most 256 UTF-8 bytes, got 257; shorten it (a fixed limit of the catalog format)"#)
        XCTAssertEqual(
            rejection(#"{"id":"a","title":"b","categories":["x","\#(category)"]}"#),
            #"field "categories"[1]: expected at most 256 UTF-8 bytes, got 257; shorten it (a fixed limit of the catalog format)"#)
    }

    func testOversizedLine() {
        var limits = CatalogLimits()
        limits.maximumLineBytes = 30
        let line = #"{"id":"a","title":"bcdefghijklmnopq"}"#  // 37 bytes
        XCTAssertEqual(
            rejection(line, limits: limits),
            "line is 37 bytes long, over the limit of 30; split the entry's text (a fixed limit of the catalog format)")
        limits.maximumLineBytes = 37
        XCTAssertNil(rejection(line + "\r", limits: limits))  // the CR does not count
    }

    // MARK: - Unknown fields and nesting

    func testUnknownFieldsAreSkipped() {
        let line = #"{"id":"a","x":{"title":"not me","id":[1,{"a":[null,true,1.5e3,"s"]}]},"title":"b","y":[],"z":null}"#
        XCTAssertEqual(entry(line), CatalogEntry(id: "a", title: "b"))
        let reader = CatalogReader(bytes: Array((line + "\n" + #"{"id":"c","title":"d","x":1}"#).utf8))
        while let _ = try! reader.next() {}
        XCTAssertEqual(reader.summary.unknownFields, 4)
    }

    func testNestingLimit() {
        // The top-level object is level 1, so 31 arrays inside it reach level 32: allowed.
        let ok = #"{"id":"a","title":"b","x":\#(String(repeating: "[", count: 31))\#(String(repeating: "]", count: 31))}"#
        XCTAssertNotNil(entry(ok))
        let deep = #"{"id":"a","title":"b","x":\#(String(repeating: "[", count: 32))\#(String(repeating: "]", count: 32))}"#
        let reason = #"field "x": expected at most 32 levels of nesting, got more; flatten the value (a fixed limit of the catalog format)"#
        XCTAssertEqual(rejection(deep), reason)
        let objects = #"{"id":"a","title":"b","x":\#(String(repeating: #"{"k":"#, count: 40))1\#(String(repeating: "}", count: 40))}"#
        XCTAssertEqual(rejection(objects), reason)
        // Far too deep, and unterminated: stopped at the limit, not by running out of memory.
        XCTAssertEqual(rejection(#"{"x":"# + String(repeating: "[", count: 100_000)), reason)
    }

    // MARK: - Null

    func testNullHandling() {
        XCTAssertEqual(
            entry(#"{"id":"a","title":"b","category":null,"weight":null,"aliases":null,"description":null,"attributes":null}"#),
            CatalogEntry(id: "a", title: "b"))
        XCTAssertEqual(entry(#"{"id":"a","title":"b","categories":null}"#), CatalogEntry(id: "a", title: "b"))
        XCTAssertEqual(rejection(#"{"id":null,"title":"b"}"#), #"field "id": expected a non-empty string, got null"#)
        XCTAssertEqual(rejection(#"{"id":"a","title":null}"#), #"field "title": expected a non-blank string, got null"#)
        XCTAssertEqual(rejection(#"{"id":"a","title":"b","categories":[null]}"#),
                       #"field "categories"[0]: expected a string, got null"#)
    }

    func testErrorDescription() {
        XCTAssertEqual(CatalogLineError(line: 7, reason: "boom").description, "line 7: boom")
        guard case .failure(let error)? = parseCatalogLine(#"{"title":"x"}"#.utf8, line: 4) else { return XCTFail() }
        XCTAssertEqual("\(error)", #"line 4: missing required field "id""#)
    }
}
