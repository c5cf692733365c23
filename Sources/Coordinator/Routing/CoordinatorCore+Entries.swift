extension CoordinatorCore {
    /// The collection's entries as its replicas' health checks last reported them (what Describe
    /// lists): per shard, the count of a replica serving `generation` (else the largest any
    /// replica reported), added up. 0 before the first checks. O(replicas); never on the query path.
    func entries(serving generation: UInt64?) -> UInt64 {
        var total: UInt64 = 0
        for shard in shardNames.indices {
            let healths = replicas.filter { $0.shard == shard }.map(\.health)
            let serving = healths.first { generation != nil && $0.current == generation } ?? healths.max { $0.entries < $1.entries }
            total += serving?.entries ?? 0
        }
        return total
    }
}
