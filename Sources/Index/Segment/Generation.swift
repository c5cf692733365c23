import Storage

/// One open index generation: its LMDB environment, databases and fixed facts.
///
/// Thread-safety: immutable after `init`; LMDB environments serve concurrent readers, and writes
/// are serialised by LMDB's writer lock. Lifetime: the environment closes when the last reference to
/// the generation goes, so queries that still hold it finish on it after a switch.
final class Generation: Sendable {
    let number: Int
    let path: String
    let environment: Environment
    let schema: Schema
    /// Documents 0..<baseCount are the base segment, in static rank order.
    let baseCount: UInt32
    let parameters: TrieParameters

    init(number: Int, path: String, readOnly: Bool) throws {
        self.number = number
        self.path = path
        var options = Environment.Options()
        options.readOnly = readOnly
        environment = try Environment(path: path, options: options)
        schema = try Schema(environment: environment, create: false)
        let schema = self.schema
        let facts: (UInt32, TrieParameters)? = try environment.read { txn in
            guard let format = try txn.get(schema.meta, MetaKey.format), format.string == MetaKey.formatValue else {
                throw IndexError.corrupt("\(path) is not a typeahead generation (format mismatch)")
            }
            guard try txn.get(schema.meta, MetaKey.complete) != nil else { return nil }
            guard let base = try txn.get(schema.meta, MetaKey.baseCount), base.count == 4,
                  let trie = try txn.get(schema.meta, MetaKey.trieParameters) else {
                throw IndexError.corrupt("\(path) lacks its metadata")
            }
            let parts = trie.string.split(separator: ",").compactMap { Int($0) }
            guard parts.count == 2 else { throw IndexError.corrupt("\(path) has bad trie parameters") }
            return (base.loadBigEndian(UInt32.self, at: 0), TrieParameters(listSize: parts[0], heavyThreshold: parts[1]))
        }
        guard let facts else {
            throw IndexError(.failedPrecondition, "generation \(number) at \(path) is incomplete (its build did not finish)")
        }
        (baseCount, parameters) = facts
    }
}
