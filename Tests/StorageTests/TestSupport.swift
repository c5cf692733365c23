import Foundation
import Storage
import XCTest

/// Base class: every test gets a fresh temporary directory, removed afterwards.
class StorageTestCase: XCTestCase {
    private(set) var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("StorageTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    /// A path under the test's temporary directory (not created).
    func path(_ name: String) -> String {
        root.appendingPathComponent(name, isDirectory: true).path
    }

    /// Opens (creating) an environment in `path(name)`.
    func makeEnvironment(_ name: String = "env", configure: (inout Environment.Options) -> Void = { _ in }) throws -> Environment {
        var options = Environment.Options()
        options.mapSize = 1 << 26   // 64 MiB is plenty for tests
        configure(&options)
        return try Environment(path: path(name), options: options)
    }

    /// Asserts that `body` throws a `StorageError` and returns it.
    func assertStorageError<R>(
        _ body: @autoclosure () throws -> R,
        file: StaticString = #filePath, line: UInt = #line
    ) -> StorageError? {
        do {
            _ = try body()
            XCTFail("expected a StorageError, nothing was thrown", file: file, line: line)
        } catch let error as StorageError {
            return error
        } catch {
            XCTFail("expected a StorageError, got \(error)", file: file, line: line)
        }
        return nil
    }
}

struct TestFailure: Error, Equatable {}

extension Array where Element == UInt8 {
    init(_ string: String) { self = Array(string.utf8) }
}
