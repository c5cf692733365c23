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
    public typealias Run = ChildRun

    /// `typeahead` next to the test bundle (both are products of the same build).
    public static var url: URL { BuiltProducts.typeahead }

    public static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: url.path) }

    /// Runs it to the end with `arguments`, feeding `stdin` (then end of file).
    public static func run(_ arguments: [String], stdin: String? = nil) throws -> Run {
        try ChildRun.run(url.path, arguments, stdin: stdin, timeout: 300)
    }
}
