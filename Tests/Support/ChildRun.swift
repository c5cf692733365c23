import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process run to its end under a deadline, for tests that drive scripts and tools.
///
/// Output goes to files, never pipes: a child that fills a pipe nobody reads would block forever,
/// and after a timeout the files can still be read. On the deadline the child gets SIGTERM (so a
/// script may clean up), then SIGKILL once `grace` has passed; its status is then -1 and the
/// standard error ends with a line saying so.
///
/// ```swift
/// let run = try ChildRun.run("/usr/bin/env", ["python3", "check.py"], timeout: 60)
/// XCTAssertEqual(run.status, 0, run.output)
/// ```
public struct ChildRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var timedOut: Bool
    /// Standard output, then standard error.
    public var output: String { stdout + stderr }

    /// Runs `executable` with `arguments`, feeding it `stdin` (then end of file) or nothing.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: String? = nil,
                           timeout: TimeInterval = 60, grace: TimeInterval = 0) throws -> ChildRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let base = NSTemporaryDirectory() + "typeahead-child-\(UUID().uuidString)"
        let outPath = base + ".out", errPath = base + ".err", inPath = base + ".in"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        _ = FileManager.default.createFile(atPath: inPath, contents: Data((stdin ?? "").utf8))
        defer {
            for path in [outPath, errPath, inPath] { try? FileManager.default.removeItem(atPath: path) }
        }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer { try? out.close(); try? err.close() }
        process.standardOutput = out
        process.standardError = err
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        defer { try? input.close() }
        process.standardInput = input
        try process.run()
        var timedOut = false
        if !waitForExit(process, within: timeout) {
            timedOut = true
            kill(process.processIdentifier, SIGTERM)
            if !waitForExit(process, within: grace) { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        var stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        if timedOut { stderr += "\n(timed out after \(Int(timeout)) s)" }
        return ChildRun(status: timedOut ? -1 : process.terminationStatus, stdout: stdout, stderr: stderr, timedOut: timedOut)
    }

    private static func waitForExit(_ process: Process, within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }
}
