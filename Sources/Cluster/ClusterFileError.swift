/// A cluster file that cannot be used, with where and why.
public struct ClusterFileError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// The JSON path of the problem (`shards[2].replicas[0]`), empty for the whole file.
    public var path: String
    public var problem: String

    public var description: String { path.isEmpty ? "\(file): \(problem)" : "\(file): \(path) \(problem)" }
}
