#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why one line of a catalog is invalid.
///
/// `reason` says what was expected, what was found and, where it is not obvious, how to fix it.
/// The forms used (the exact wording is tested):
/// - `missing required field "id"`
/// - `field "weight": expected a non-negative integer, got -3`
/// - `field "categories"[2]: expected a non-empty string, got ""`
/// - `field "attributes": duplicate key "price"`
/// - `duplicate id "abc" (first seen on line 12)`
/// - `invalid UTF-8 at byte 17` (bytes of the line counted from 1)
/// - `invalid JSON: parse error: premature EOF (at end of line); is the line cut short?`
/// - `invalid JSON: lexical error: invalid char in json text (near byte 25)`
/// - `line is 2000000 bytes long, over the limit of 1048576; …`
///
/// Example:
/// ```swift
/// let error = CatalogLineError(line: 7, reason: #"missing required field "id""#)
/// print(error)   // line 7: missing required field "id"
/// ```
public struct CatalogLineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line's number, counting from 1; blank lines count.
    public var line: Int
    /// What is wrong, without the line number.
    public var reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// `"line 7: <reason>"`.
    public var description: String { "line \(line): \(reason)" }
}

/// What `loadCatalog(path:policy:.strict, …)` throws when a catalog has invalid lines.
///
/// Example of `description`:
/// ```
/// catalog has 23 invalid lines:
///   line 2: missing required field "id"
///   line 9: field "weight": expected a non-negative integer, got 1.5
///   … and 21 more
/// ```
public struct CatalogValidationError: Error, CustomStringConvertible, Sendable {
    /// The first invalid lines, in line order (at most `maximumReported` of `loadCatalog`).
    public var errors: [CatalogLineError]
    /// How many lines were invalid in total, reported or not.
    public var totalErrors: Int

    public init(errors: [CatalogLineError], totalErrors: Int) {
        self.errors = errors
        self.totalErrors = totalErrors
    }

    public var description: String {
        var text = "catalog has \(totalErrors) invalid line\(totalErrors == 1 ? "" : "s"):"
        for error in errors { text += "\n  \(error)" }
        if totalErrors > errors.count { text += "\n  … and \(totalErrors - errors.count) more" }
        return text
    }
}

/// A catalog file could not be opened or read.
///
/// Example of `description`: `cannot open catalog shop.jsonl: No such file or directory`.
public struct CatalogIOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path as given ("-" for standard input).
    public var path: String
    /// "open" or "read".
    public var operation: String
    /// The `errno` the system call failed with.
    public var errno: Int32

    public init(path: String, operation: String, errno: Int32) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        let name = path == "-" ? "standard input" : path
        return "cannot \(operation) catalog \(name): \(String(cString: strerror(errno)))"
    }
}
