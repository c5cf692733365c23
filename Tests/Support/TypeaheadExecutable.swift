import Foundation

/// The built `typeahead` binary, driven as a person or a script would: for tests of a command's
/// options, messages and exit status.
///
/// ```swift
/// guard TypeaheadExecutable.isBuilt else { throw XCTSkip("typeahead binary not built next to the tests") }
/// let run = try TypeaheadExecutable.run(["load", "--connections", "0"])
/// XCTAssertEqual(run.status, 2)
/// ```
public enum TypeaheadExecutable {
    /// How a run ended.
    public struct Run: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// `typeahead` next to the test bundle (both are products of the same build).
    public static var url: URL { BuiltProducts.typeahead }

    public static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: url.path) }

    /// Runs it to the end with `arguments`, feeding `stdin` (then end of file).
    public static func run(_ arguments: [String], stdin: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Standard error on another thread: a child that fills one pipe while we wait on the other
        // would block forever.
        let errors = ErrorReader(err.fileHandleForReading)
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = errors.wait()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                   stderr: String(decoding: stderrData, as: UTF8.self))
    }

    private final class ErrorReader: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            // `data` is written by the reading thread before `done` is signalled, and read after `wait`.
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        func wait() -> Data {
            done.wait()
            return data
        }
    }
}
