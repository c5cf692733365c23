import XCTest
final class CatalogTestsSmoke: XCTestCase { func testModuleLoads() { XCTAssertTrue(true) } }
