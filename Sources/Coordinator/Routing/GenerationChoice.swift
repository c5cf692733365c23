/// Which index generation a coordinator pins its queries to: every query of a cluster reads one
/// generation on every shard, never a mix.
///
/// The rule, a pure function of what the replicas report (so every coordinator of a cluster,
/// restarted or not, decides the same):
///
/// 1. The candidates are the generations that are *current* on at least one healthy replica.
/// 2. A candidate's coverage is the number of shards with a healthy replica that holds it
///    complete (current, previous or staged).
/// 3. The chosen one has the largest coverage; among those, the newest.
///
/// Why this gives an atomic cluster-wide switch: `typeahead admin reindex` stages generation G+1
/// on every replica first — staged is not current, so nothing changes — and then activates it
/// replica by replica. The first activation makes G+1 a candidate with full coverage, newer than
/// G: from that moment every new query reads G+1, on every shard (nodes answer for any complete
/// generation they are asked for). A rollback is the same in reverse: G+1 stays chosen until the
/// last replica stops serving it. A shard with no healthy replica lowers every candidate's
/// coverage alike, so it does not change the choice.
///
/// Complexity: O(replicas × generations per replica).
public enum GenerationChoice {
    /// What one healthy replica reports.
    public struct Report: Sendable, Hashable {
        public var shard: Int
        /// Its serving generation (0: none).
        public var current: UInt64
        /// Every complete generation it holds, the current one included.
        public var complete: Set<UInt64>

        public init(shard: Int, current: UInt64, complete: Set<UInt64>) {
            self.shard = shard
            self.current = current
            self.complete = complete
        }
    }

    /// The generation to pin, or nil when no healthy replica serves any.
    public static func choose(_ reports: [Report]) -> UInt64? {
        let candidates = Set(reports.map(\.current).filter { $0 != 0 })
        var best: (coverage: Int, generation: UInt64)?
        for candidate in candidates {
            let coverage = Set(reports.filter { $0.complete.contains(candidate) }.map(\.shard)).count
            if best == nil || coverage > best!.coverage || (coverage == best!.coverage && candidate > best!.generation) {
                best = (coverage, candidate)
            }
        }
        return best?.generation
    }
}
