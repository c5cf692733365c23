import XCTest
final class AnalysisTestsSmoke: XCTestCase { func testModuleLoads() { XCTAssertTrue(true) } }
