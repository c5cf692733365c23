import XCTest
final class StorageTestsSmoke: XCTestCase { func testModuleLoads() { XCTAssertTrue(true) } }
