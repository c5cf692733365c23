import Foundation
import XCTest

@testable import RPC

final class ServingAllocatorTests: XCTestCase {
    /// The operator's own allocator settings win: with MALLOC_CONF in the environment, nothing is
    /// changed.
    func testTheOperatorsAllocatorSettingsWin() {
        XCTAssertFalse(ServingAllocator.configure(environment: ["MALLOC_CONF": "dirty_decay_ms:1000"]))
        XCTAssertTrue(ServingAllocator.configure(environment: ["GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=512"]))
        XCTAssertTrue(ServingAllocator.configure(environment: [:]))
    }

    /// jemalloc really is the process's allocator: its account sees a block Swift allocates
    /// (with glibc's malloc it would count nothing), and a purge after freeing it leaves less
    /// resident beyond what is in use.
    func testJemallocServesTheProcess() {
        XCTAssertTrue(ServingAllocator.isJemalloc, "jemalloc's mallctl is not linked")
        let before = ServingAllocator.heapStatistics()
        let size = 64 << 20
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        memset(block, 1, size)
        let during = ServingAllocator.heapStatistics()
        XCTAssertGreaterThanOrEqual(during.inUse, before.inUse + UInt64(size) - (1 << 20),
                                    "the allocator's account did not see a 64 MiB block: is jemalloc linked?")
        block.deallocate()
        let timer = ServingAllocator.startReleasing(every: .milliseconds(10))
        defer { timer.cancel() }
        let deadline = Date().addingTimeInterval(5)
        var after = ServingAllocator.heapStatistics()
        while after.inUse + after.free >= during.inUse, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            after = ServingAllocator.heapStatistics()
        }
        XCTAssertLessThan(after.inUse + after.free, during.inUse, "the freed block stayed resident after purges")
    }
}
