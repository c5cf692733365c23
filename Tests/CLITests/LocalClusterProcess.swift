import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A `typeahead local` process for a test: started with `arguments` (in `directory`, the package
/// root by default), waited for until it has printed its summary, stopped with SIGTERM by
/// ``stop()``. Its output goes to a file beside its data.
final class LocalClusterProcess {
    let process = Process()
    /// What it printed (standard output and error) up to its summary's last line.
    private(set) var printed = ""

    init(_ arguments: [String], output: String, in directory: URL? = nil, timeout: TimeInterval = 120) throws {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.executableURL = TypeaheadExecutable.url
        process.currentDirectoryURL = directory
        process.arguments = ["local"] + arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while !printed.contains("Ctrl-C stops"), process.isRunning, Date() < deadline {
            usleep(50_000)
            printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
    }

    /// The address after `prefix` on the summary line that starts with it (`  coordinator  `).
    func address(after prefix: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let found = try XCTUnwrap(printed.split(separator: "\n").first { $0.hasPrefix(prefix + "http://") }, printed, file: file, line: line)
        return String(found.dropFirst(prefix.count).split(separator: " ")[0])
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
