import Storage

/// The weight of every delta document of one read snapshot, by number: what ranking delta
/// candidates by weight needs, without a B+tree descent into `docs` for each.
///
/// Why: delta documents are numbered as they arrived, not in rank order, so the general plan
/// ranks its delta candidates by weight before reading them (``SuggestContext`` `rankDelta`), and
/// took each weight from its record's head, a look-up of its own. With a fifth of Debian
/// re-weighted, "python3-fo" has 800 delta candidates with "python3": 800 look-ups, most of its
/// 400 µs. Kept per snapshot by ``Generation/deltaWeights`` (a ``SnapshotCache``).
///
/// Cost: one cursor walk of the delta's records and a sort, O(delta log delta); 16 bytes and a bit
/// a number.
///
/// ```swift
/// let weights = try generation.deltaWeights(in: txn)   // nil while a large one is built
/// weights?.weight(of: docnum)                           // nil: no such delta document
/// weights?.place(of: docnum)                            // its place in `order`
/// ```
struct DeltaWeights: Sendable {
    /// The first delta number (the base's count).
    let first: UInt32
    private let weights: [UInt64]
    /// Which numbers have a document (a replaced or deleted delta document leaves a hole).
    private let present: DocumentBitmap
    /// The delta documents in rank order as far as weights tell it: weight descending, then
    /// number (the order the general plan reads delta candidates in).
    let order: [UInt32]
    /// Each number's place in ``order`` (by number less `first`; a hole's is never read).
    private let places: [UInt32]

    /// Numbers in the delta (holes included).
    var count: Int { weights.count }

    /// Delta numbers up to which a query builds the weights itself (a cursor walk and a sort of
    /// under a millisecond at this size); a larger delta's are built in the background.
    static let inlineBuildLimit = 4096

    /// Weights a query would read one by one below which it does not start a build.
    static let minimumReads = 32

    /// The weight of delta document `docnum`, or nil when it does not exist. Base numbers are
    /// not asked about.
    func weight(of docnum: UInt32) -> UInt64? {
        index(of: docnum).map { weights[$0] }
    }

    /// Delta document `docnum`'s place in ``order``, or nil when it does not exist: sorting
    /// places (numbers, by a radix sort) sorts documents into rank order, with no comparison
    /// of weights.
    func place(of docnum: UInt32) -> UInt32? {
        index(of: docnum).map { places[$0] }
    }

    /// Delta document `docnum`'s index in the per-number arrays, nil when it does not exist.
    private func index(of docnum: UInt32) -> Int? {
        guard docnum >= first else { return nil }
        let index = Int(docnum - first)
        guard index < weights.count, present.contains(UInt32(index)) else { return nil }
        return index
    }

    /// Bytes held, for the cache's accounting.
    var bytes: Int { 8 * weights.count + present.bytes + 4 * order.count + 4 * places.count }

    /// Reads the weights of the delta documents `txn` sees, numbered from `first`, from their
    /// records' heads.
    static func build(_ schema: Schema, first: UInt32, in txn: borrowing ReadTransaction) throws -> DeltaWeights {
        // This transaction's own `next_document`: a background build reads a newer snapshot than
        // the query that asked for it.
        let next = try Generation.nextDocument(schema, in: txn) ?? first
        let count = Int(next > first ? next - first : 0)
        var weights = [UInt64](repeating: 0, count: count)
        var present = DocumentBitmap(spanning: count)
        try txn.withCursor(schema.docs) { cursor in
            var entry = try cursor.seek(atLeast: schema.documentKey(first))
            while let (key, record) = entry {
                let docnum = schema.documentNumber(key)
                guard docnum >= first, docnum < next else { break }
                weights[Int(docnum - first)] = try DocumentRecord.weight(record)
                present.insert(docnum - first)
                entry = try cursor.next()
            }
        }
        var order: [UInt32] = []
        order.reserveCapacity(count)
        for index in 0..<count where present.contains(UInt32(index)) { order.append(first + UInt32(index)) }
        order.sort { weights[Int($0 - first)] != weights[Int($1 - first)] ? weights[Int($0 - first)] > weights[Int($1 - first)] : $0 < $1 }
        var places = [UInt32](repeating: 0, count: count)
        for (place, docnum) in order.enumerated() { places[Int(docnum - first)] = UInt32(place) }
        return DeltaWeights(first: first, weights: weights, present: present, order: order, places: places)
    }
}

extension Generation {
    /// The delta's weights as `txn` sees them, or nil while a large delta's are built in the
    /// background (then read each record's head: ``documentWeight(_:in:)``).
    ///
    /// - Parameter reads: how many weights the caller would otherwise read one by one. A query
    ///   with fewer than ``DeltaWeights/minimumReads`` does not start a build (it takes a built one).
    ///   Past that the weights are built once per snapshot, as the delta's trie is: by the query
    ///   for a small delta, in the background for a large one, and every query of the snapshot
    ///   after that reads them for free.
    func deltaWeights(reads: Int, in txn: borrowing ReadTransaction) throws -> DeltaWeights? {
        if let built = deltaWeightCache.cached(in: txn) { return built }
        guard reads >= DeltaWeights.minimumReads, let next = try Self.nextDocument(schema, in: txn), next > baseCount else { return nil }
        let schema = schema, first = baseCount
        return try deltaWeightCache.value(size: Int(next - first), environment: environment, in: txn) { txn in
            try DeltaWeights.build(schema, first: first, in: txn)
        }
    }

    /// The number the next upserted document takes (`next_document`), nil when not recorded.
    static func nextDocument(_ schema: Schema, in txn: borrowing ReadTransaction) throws -> UInt32? {
        guard let value = try txn.get(schema.meta, MetaKey.nextDocument), value.count == 4 else { return nil }
        return value.loadBigEndian(UInt32.self, at: 0)
    }
}
