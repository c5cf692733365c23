/// Why a load run could not start (or its input was refused). The message is one line for option
/// and target errors and names line numbers for malformed files; ``kind`` says which, so a command
/// line can exit 2 for a usage error and 1 otherwise.
///
/// ```swift
/// do { try configuration.validate() } catch { print(error) }  // "--connections must be 1...10000, got 0"
/// ```
public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for the exit status.
    public enum Kind: Sendable, Equatable {
        /// An option out of its range or a conflicting combination (a usage error).
        case invalidConfiguration
        /// The catalog or query file is missing or malformed.
        case workload
        /// The target cannot be reached, or refuses the calls outright (no such service, wrong token).
        case target
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
