import Foundation
import Storage
import Wire
import WireConversions
import XCTest

/// Storage failures a client or an operator can act on answer with their own status and reason.
final class StorageErrorStatusTests: XCTestCase {
    func testConditionsGetTheirCodesAndReasons() {
        let full = GRPCStatus(describing: StorageError(code: ENOSPC, operation: "mdb_txn_commit in /srv/shard: the file system is full (0 bytes free)"))
        XCTAssertEqual(full.code, .resourceExhausted)
        XCTAssertEqual(full.errorInfo?.reason, "NO_SPACE")
        XCTAssertTrue(full.message.contains("/srv/shard"), full.message)
        XCTAssertEqual(GRPCStatus(describing: StorageError(code: EDQUOT, operation: "x")).errorInfo?.reason, "NO_SPACE")
        XCTAssertEqual(GRPCStatus(describing: StorageError(code: -30792, operation: "mdb_put")).errorInfo?.reason, "MAP_FULL")
        XCTAssertEqual(GRPCStatus(describing: StorageError(code: -30790, operation: "mdb_txn_begin")).code, .unavailable)
        let other = GRPCStatus(describing: StorageError(code: EINVAL, operation: "mdb_get"))
        XCTAssertEqual(other.code, .internal)
        XCTAssertNil(other.errorInfo)
    }
}
