import Foundation
@testable import RPC
import Wire
import XCTest

final class FormQueryTests: XCTestCase {
    func items(_ path: String) throws -> [String: String?] {
        var result: [String: String?] = [:]
        for item in try FormQuery.items(in: path) { result[item.name] = item.value }
        return result
    }

    /// `+` is a space and `%XX` a byte, as URLSearchParams, urlencode and curl --data-urlencode send.
    func testFormEncoding() throws {
        XCTAssertEqual(try items("/v1/suggest?q=red+sh&limit=3"), ["q": "red sh", "limit": "3"])
        XCTAssertEqual(try items("/v1/suggest?token=category:Pet+Supplies"), ["token": "category:Pet Supplies"])
        XCTAssertEqual(try items("/v1/suggest?q=a%2Bb%20c"), ["q": "a+b c"])
        XCTAssertEqual(try items("/v1/suggest?q=S%C3%A3o+Paulo"), ["q": "São Paulo"])
        let bare = try items("/v1/suggest?q=&flag&&x=1")
        XCTAssertEqual(bare.count, 3)
        XCTAssertEqual(bare["q"], .some(""))
        XCTAssertEqual(bare["flag"], .some(nil))
        XCTAssertEqual(bare["x"], .some("1"))
        XCTAssertEqual(try items("/v1/suggest"), [:])
        XCTAssertEqual(try FormQuery.items(in: "/v1/suggest?token=a&token=b").map(\.value), ["a", "b"])
    }

    /// Unreadable values are refused, naming the parameter, instead of silently becoming empty.
    func testMalformedIsRefusedByName() {
        for (path, parameter) in [("/v1/suggest?q=knife%FF", "q"), ("/v1/suggest?limit=3&q=%G1", "q"),
                                  ("/v1/suggest?q=%4", "q"), ("/v1/suggest?q=ab%", "q"), ("/v1/suggest?token=%C3", "token")] {
            XCTAssertThrowsError(try FormQuery.items(in: path), path) { error in
                let status = error as? GRPCStatus
                XCTAssertEqual(status?.code, .invalidArgument, path)
                XCTAssertTrue(status?.message.contains("\"\(parameter)\"") ?? false, "\(path): \(String(describing: status?.message))")
            }
        }
    }
}
