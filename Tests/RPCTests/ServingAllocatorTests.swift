import Foundation
import XCTest

@testable import RPC

final class ServingAllocatorTests: XCTestCase {
    /// The operator's own malloc settings win: with any in the environment, nothing is changed.
    func testTheOperatorsMallocSettingsWin() {
        XCTAssertFalse(ServingAllocator.configure(environment: ["MALLOC_ARENA_MAX": "2"]))
        XCTAssertFalse(ServingAllocator.configure(environment: ["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1"]))
        XCTAssertTrue(ServingAllocator.configure(environment: ["GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=512"]))
        XCTAssertTrue(ServingAllocator.configure(environment: [:]))
    }
}
