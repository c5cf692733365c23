import Analysis
import Catalog
import Storage

/// What an upsert or delete batch changed.
public struct UpdateSummary: Sendable, Hashable {
    /// Entries that did not exist before.
    public var inserted = 0
    /// Entries that replaced an existing entry with the same id.
    public var replaced = 0
    /// Entries removed.
    public var deleted = 0
    /// Ids asked to be deleted that did not exist.
    public var missing = 0
    public init() {}
}

/// Applies incremental changes to a generation, one atomic write transaction per batch.
///
/// New versions go to the delta segment (`delta_terms`, document numbers from `next_document` on);
/// a replaced or deleted base document is marked in `deleted`, a replaced delta document is removed
/// outright. Chip counts and words (categories, filterable attribute values) are kept in step, so
/// every cached figure the query path reads is exact after the call returns. Within a batch, a later entry with the same id wins.
/// So are the delta's prefix lists (``DeltaLists``), when they are complete at the batch's start:
/// in the same transaction, so a batch is atomic and every read sees lists of its own delta.
struct Updater {
    let generation: Generation
    let analyzer: Analyzer

    func upsert(_ entries: [CatalogEntry]) throws -> UpdateSummary {
        let analysed = entries.map { AnalysedEntry($0, analyzer: analyzer) }
        let schema = generation.schema
        return try generation.environment.write { txn in
            var summary = UpdateSummary()
            var next = try Self.readU32(txn.get(schema.meta, MetaKey.nextDocument))
            var live = try Self.readU64(txn.get(schema.meta, MetaKey.liveCount))
            var writer = ByteWriter(capacity: 1024)
            // Lists that are incomplete (written before, or by a version without them) stay so:
            // adding to them would cost writes no reader trusts.
            let lists = try listsToMaintain(next: next, txn)
            for doc in analysed {
                if let existing = try txn.get(schema.ids, doc.entry.id) {
                    try remove(existing.loadBigEndian(UInt32.self, at: 0), txn)
                    live -= 1
                    summary.replaced += 1
                } else {
                    summary.inserted += 1
                }
                guard next < UInt32.max else { throw IndexError(.failedPrecondition, "document numbers exhausted; rebuild the shard") }
                let number = next
                next += 1
                writer.removeAll()
                DocumentRecord.encode(doc, version: schema.recordVersion, keys: generation.attributeKeys, into: &writer)
                try txn.put(schema.docs, schema.documentKey(number), writer.bytes)
                try txn.put(schema.ids, doc.entry.id, number)
                if let titles = schema.titles {
                    try txn.put(titles, TitleKey.make(sortTitle: doc.sortTitle, docnum: number), EmptyValue())
                }
                for term in doc.nameTerms { try txn.put(schema.deltaTerms, term, Self.posting(number, field: 0)) }
                if let lists {
                    try lists.add(number, weight: doc.entry.weight,
                                  words: DeltaLists.Words(sortTitle: doc.sortTitle, nameWords: doc.nameTerms), in: txn)
                }
                for term in doc.descriptionWords { try txn.put(schema.deltaTerms, term, Self.posting(number, field: 1)) }
                for token in doc.tokens(filterable: generation.filterable) {
                    try txn.put(schema.deltaTerms, Schema.tokenTerm(token), Self.posting(number, field: 0))
                    let place = try schema.chipDatabases(token)
                    let count = try Self.readU64(txn.get(place.counts, place.key), default: 0)
                    try txn.put(place.counts, place.key, count + 1)
                    if count == 0 {
                        for word in Set(analyzer.terms(in: token.value)) { try txn.put(place.words, word, place.key) }
                    }
                }
                live += 1
            }
            try txn.put(schema.meta, MetaKey.nextDocument, next)
            if lists != nil { try txn.put(schema.meta, MetaKey.deltaListsThrough, next) }
            try txn.put(schema.meta, MetaKey.liveCount, live)
            return summary
        }
    }

    func delete(ids: [String]) throws -> UpdateSummary {
        let schema = generation.schema
        return try generation.environment.write { txn in
            var summary = UpdateSummary()
            var live = try Self.readU64(txn.get(schema.meta, MetaKey.liveCount))
            for id in ids {
                guard let existing = try txn.get(schema.ids, id) else {
                    summary.missing += 1
                    continue
                }
                try remove(existing.loadBigEndian(UInt32.self, at: 0), txn)
                try txn.delete(schema.ids, id)
                live -= 1
                summary.deleted += 1
            }
            try txn.put(schema.meta, MetaKey.liveCount, live)
            return summary
        }
    }

    /// The delta's prefix lists if they list every live delta document before this batch.
    private func listsToMaintain(next: UInt32, _ txn: borrowing WriteTransaction) throws -> DeltaLists? {
        let schema = generation.schema
        guard let lists = schema.deltaLists,
              DeltaLists.areComplete(through: try txn.get(schema.meta, MetaKey.deltaListsThrough), next: next) else { return nil }
        return lists
    }

    /// Removes one live document from the query path (its id mapping is the caller's business).
    private func remove(_ docnum: UInt32, _ txn: borrowing WriteTransaction) throws {
        let schema = generation.schema
        guard let record = try txn.get(schema.docs, schema.documentKey(docnum)) else {
            throw IndexError.corrupt("id maps to missing document \(docnum)")
        }
        // Copy what is needed: values read in a write transaction die at the next write.
        let view = try DocumentView(docnum: docnum, record: record, keys: generation.attributeKeys)
        let tokens = try view.tokens(filterable: generation.filterable)
        let nameTerms = Array(Set(WordList(bytes: view.sortTitle).map { Array($0) })) + WordList(bytes: view.aliasWords).map { Array($0) }
        let descriptionTerms = WordList(bytes: try view.descriptionWords).map { Array($0) }
        let titleKey = TitleKey.make(sortTitle: view.sortTitle, docnum: docnum)
        let weight = view.weight
        let lists = docnum < generation.baseCount ? nil : schema.deltaLists
        let listWords = lists.map { _ in DeltaLists.Words(sortTitle: view.sortTitle, nameWords: nameTerms) }

        for token in tokens {
            let place = try schema.chipDatabases(token)
            let count = try Self.readU64(txn.get(place.counts, place.key), default: 0)
            try txn.put(place.counts, place.key, count > 0 ? count - 1 : 0)
        }
        if docnum < generation.baseCount {
            try txn.put(schema.deleted, docnum, [UInt8]())
            return
        }
        for term in nameTerms { try txn.delete(schema.deltaTerms, term, value: Self.posting(docnum, field: 0)) }
        for term in descriptionTerms { try txn.delete(schema.deltaTerms, term, value: Self.posting(docnum, field: 1)) }
        for token in tokens {
            try txn.delete(schema.deltaTerms, Schema.tokenTerm(token), value: Self.posting(docnum, field: 0))
        }
        if let titles = schema.titles { try txn.delete(titles, titleKey) }
        if let lists, let listWords {
            // Whether or not the lists are complete: a value left behind would name a removed
            // document (readers skip it), so removing it is only tidier, never wrong.
            try lists.remove(docnum, weight: weight, words: listWords, in: txn)
        }
        try txn.delete(schema.docs, schema.documentKey(docnum))
    }

    static func posting(_ docnum: UInt32, field: UInt8) -> [UInt8] {
        docnum.bigEndianBytes + [field]
    }

    static func readU32(_ bytes: Bytes?) throws -> UInt32 {
        guard let bytes, bytes.count == 4 else { throw IndexError.corrupt("bad counter in meta") }
        return bytes.loadBigEndian(UInt32.self, at: 0)
    }

    static func readU64(_ bytes: Bytes?, default value: UInt64? = nil) throws -> UInt64 {
        guard let bytes, bytes.count == 8 else {
            if let value { return value }
            throw IndexError.corrupt("bad counter in meta")
        }
        return bytes.loadBigEndian(UInt64.self, at: 0)
    }
}
