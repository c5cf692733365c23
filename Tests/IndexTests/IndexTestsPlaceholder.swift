import XCTest
final class IndexTestsSmoke: XCTestCase { func testModuleLoads() { XCTAssertTrue(true) } }
