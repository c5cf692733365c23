import Foundation
import TypeaheadClient
import XCTest

/// A scoped answer's section whose collection failed as a whole decodes with its error (the JSON
/// the coordinator writes, `ScopePartialTests` in the coordinator's tests), and a section that
/// answered decodes without one.
final class SectionErrorTests: XCTestCase {
    func testAFailedSectionDecodesWithItsError() throws {
        let suggest = #"""
        {"collection":"departments","entries":[],"categories":[],"completions":[],
         "shards":{"total":2,"succeeded":0,"failed":2,"failedShards":["shard-0","shard-1"],"generation":0},
         "error":{"code":"unavailable","message":"no shard answered (shard-0, shard-1): connection refused"}}
        """#
        let section = try JSONDecoder().decode(SuggestSection.self, from: Data(suggest.utf8))
        XCTAssertEqual(section.error?.code, "unavailable")
        XCTAssertEqual(section.error?.message, "no shard answered (shard-0, shard-1): connection refused")
        XCTAssertEqual(section.shards?.succeeded, 0)

        let search = #"""
        {"collection":"departments","hits":[],"totalHits":0,"facets":[],"nextPageToken":"",
         "error":{"code":"deadline_exceeded","message":"no shard answered (shard-0)"}}
        """#
        XCTAssertEqual(try JSONDecoder().decode(SearchSection.self, from: Data(search.utf8)).error?.code, "deadline_exceeded")
        let answered = #"{"collection":"products","hits":[],"totalHits":0,"facets":[],"nextPageToken":""}"#
        XCTAssertNil(try JSONDecoder().decode(SearchSection.self, from: Data(answered.utf8)).error)
    }
}
