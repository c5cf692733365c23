import Catalog
import JSONTree
@testable import Wire
import XCTest

/// The one reading of JSON integers (`WholeNumber`), and the sameness it buys: a catalog line and
/// a JSON request say the same thing by the same number.
final class WholeNumberTests: XCTestCase {
    func testWholeNumbersAreReadExactly() {
        let cases: [(String, WholeNumber)] = [
            ("0", .value(negative: false, magnitude: 0)),
            ("12", .value(negative: false, magnitude: 12)),
            ("-3", .value(negative: true, magnitude: 3)),
            ("-0", .value(negative: false, magnitude: 0)),
            ("12.0", .value(negative: false, magnitude: 12)),
            ("1e3", .value(negative: false, magnitude: 1000)),
            ("1E+2", .value(negative: false, magnitude: 100)),
            ("12500e-2", .value(negative: false, magnitude: 125)),
            ("1.5e1", .value(negative: false, magnitude: 15)),
            ("0e999999999999", .value(negative: false, magnitude: 0)),
            ("9007199254740993", .value(negative: false, magnitude: 9_007_199_254_740_993)),  // no rounding through a Double
            ("1e19", .value(negative: false, magnitude: 10_000_000_000_000_000_000)),
            ("18446744073709551615", .value(negative: false, magnitude: .max)),
            ("18446744073709551616", .tooLarge),
            ("1e20", .tooLarge),
            ("1e999999999999999999999", .tooLarge),
            ("1.5", .notWhole),
            ("1e-3", .notWhole),
        ]
        for (text, expected) in cases { XCTAssertEqual(WholeNumber(text: text), expected, text) }
    }

    /// Strings are checked against the JSON number grammar, as yajl checks numbers.
    func testTextThatIsNotAJSONNumberIsRefused() {
        for text in ["", " 12", "12 ", "+12", "012", "-", "1.", ".5", "1e", "1e+", "12a", "0x10", "١٢", "Infinity", "NaN", "--1"] {
            XCTAssertEqual(WholeNumber(text: text), .notWhole, text)
        }
    }

    func testIntegersOfEachType() {
        XCTAssertEqual(WholeNumber(text: "-2147483648").integer(as: Int32.self), .min)
        XCTAssertNil(WholeNumber(text: "-2147483649").integer(as: Int32.self))
        XCTAssertNil(WholeNumber(text: "-1").integer(as: UInt32.self))
        XCTAssertEqual(WholeNumber(text: "-9223372036854775808").integer(as: Int64.self), .min)
        XCTAssertEqual(WholeNumber(text: "4294967295").integer(as: UInt32.self), .max)
        XCTAssertNil(WholeNumber(text: "4294967296").integer(as: UInt32.self))
        XCTAssertEqual(WholeNumber(text: "0").integer(as: Int8.self), 0)
    }

    /// A catalog's weight and a JSON request's integer field accept and refuse the same texts.
    func testACatalogWeightAndARequestFieldAgree() throws {
        for text in ["12", "12.0", "1e3", "1.5", "-3", "+12", "012", " 12", "", "1e-3", "9007199254740991"] {
            let line = parseCatalogLine(#"{"id":"a","title":"b","weight":"\#(text)"}"#.utf8, line: 1)
            let request = try? JSONRequests.suggest(JSONRequests.object(Array(#"{"revision":"\#(text)"}"#.utf8)))
            switch line {
            case .success(let entry)?:
                if text.isEmpty {
                    XCTAssertEqual(entry.weight, 0, "a blank weight is absent in a catalog")
                } else {
                    XCTAssertEqual(request?.revision, entry.weight, text)
                }
            default:
                XCTAssertNil(request, "\(text): refused by the catalog, accepted by the API")
            }
        }
    }
}
