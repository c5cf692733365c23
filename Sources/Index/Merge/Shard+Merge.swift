import Catalog
import Foundation
import Storage

/// Folding the delta into the base: a merge.
///
/// Why: upserts and deletes are cheap to write but not free to read. A delta document is
/// evaluated wherever its words match (its postings are in arrival order, not rank order, so no
/// query can stop early in them), and a deleted base document leaves a hole in every heavy trie
/// list that named it, so plans that prove their answer from those lists give up more often.
/// Queries slow down in proportion to the delta (`typeahead bench --updated`: 20% of a shard
/// re-weighted made a one-letter keystroke 12 ms instead of 13 µs). A merge rebuilds the
/// generation's base from its live entries, as a fresh build would, into a new *revision* of
/// the same generation, and switches reads to it.
///
/// What stays the same: the generation's number (the cluster pins generations by number, and a
/// merge is no reindex), its entries, and so every answer: a revision holds exactly what the one
/// before held at the moment it switched. Only speed changes.
///
/// How, in three steps, so that a node keeps writing while the build runs:
/// 1. ``beginMerge()`` (where writes are serialised, a node's writer queue): a log that from now on
///    records every write to the generation.
/// 2. ``buildMerge(_:)`` (anywhere, for seconds: a node's low-priority build thread): the new
///    revision's base, built into `gen-N/merge-R/` from the live entries, streamed from one read
///    transaction of the serving revision (a snapshot at least as new as the log's start). Writes go
///    on meanwhile, to the serving revision, and into the log.
/// 3. ``finishMerge(_:)`` (serialised with writes again): the log replayed onto the new revision,
///    `gen-N/REVISION` written durably, reads switched, the replaced data removed.
///
/// A crash or a failure at any point leaves the serving revision as it was (the new one is named
/// only at the end, and an unnamed one is removed at the next open). A merge whose generation
/// stopped serving meanwhile (an activation, a rollback) is abandoned: ``finishMerge(_:)``
/// returns nil.
///
/// Cost: a build of the whole shard (time as ``buildGeneration(from:parameters:number:label:)``, memory
/// ``buildMemory``),
/// once the delta passes a share of the base (``MergePolicy``): amortised over the writes that
/// filled it, about `1 / deltaFraction` entries rebuilt per entry written.
extension Shard {
    /// How large the current generation's delta is, by its metadata (O(1)).
    public func deltaSize() throws -> DeltaSize {
        let generation = try current()
        let schema = generation.schema
        return try generation.environment.read { txn in
            let documents = try txn.count(schema.docs)
            return DeltaSize(base: Int(generation.baseCount), documents: max(0, documents - Int(generation.baseCount)),
                             deletedBase: try txn.count(schema.deleted))
        }
    }

    /// Whether the current generation's delta is large enough for `policy`, and no merge or upload
    /// is under way (an upload's reindex replaces the base anyway).
    public func mergeDue(_ policy: MergePolicy) throws -> Bool {
        guard merging.withLock({ $0 == nil }), currentGeneration != nil, !Upload(shardDirectory: directory).exists else { return false }
        return policy.isDue(try deltaSize())
    }

    /// Step 1: starts logging writes to the current generation. Call it where writes are serialised
    /// (a node's writer queue), so that every write from now on is in the log; ``buildMerge(_:)``
    /// reads the entries.
    ///
    /// - Returns: nil when there is nothing to merge (no delta) or a merge is already under way.
    public func beginMerge() throws -> PendingMerge? {
        try writable()
        let generation = try current()
        let delta = try deltaSize()
        guard delta.total > 0 else { return nil }
        let revision = max(generation.revision, layout.revision(generation.number)) + 1
        guard merging.withLock({ log in
            guard log == nil else { return false }
            log = MergeLog(generation: generation.number, revision: revision, changes: [])
            return true
        }) else { return nil }
        return PendingMerge(generation: generation.number, revision: revision, source: generation, delta: delta,
                            parameters: generation.parameters, filterable: generation.filterable)
    }

    /// Step 2: builds the merge's revision from the serving revision's live entries. Takes as long
    /// as a build of the shard, in the build's memory (``buildMemory``); writes may go on meanwhile
    /// (the read transaction it holds keeps the pages it reads, so the serving file may grow by what
    /// is written meanwhile). On an error the partial revision is removed and the
    /// merge abandoned.
    public func buildMerge(_ pending: PendingMerge) throws -> BuildStatistics {
        let path = layout.environmentPath(pending.generation, revision: pending.revision)
        do {
            try? FileManager.default.removeItem(atPath: path)
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw IndexError(.internal, "cannot create \(path): \(error)")
            }
            var builder = GenerationBuilder()
            builder.parallel = parallelBuilds
            builder.parameters = pending.parameters
            builder.filterable = pending.filterable
            builder.memoryBudget = buildMemory
            // The live entries stream from the serving revision into the build, a batch at a time,
            // in one read transaction: a merge holds the build's memory, not the shard's entries.
            // The transaction sees the writes made since ``beginMerge()`` up to its start, which
            // the log replays again: harmless, since an upsert or delete sets an id's final state
            // whatever came before it.
            let source = pending.source, schema = pending.source.schema
            return try source.environment.read { txn in
                try txn.withCursor(schema.ids) { cursor in
                    var next = try cursor.first()
                    return try builder.build(at: path) {
                        var batch: [CatalogEntry] = []
                        batch.reserveCapacity(GenerationBuilder.batchSize)
                        while batch.count < GenerationBuilder.batchSize, let (_, value) = next {
                            let docnum = value.loadBigEndian(UInt32.self, at: 0)
                            guard let document = try source.document(docnum, in: txn) else {
                                throw IndexError.corrupt("id maps to missing document \(docnum)")
                            }
                            batch.append(try document.materialize())
                            next = try cursor.next()
                        }
                        return batch.isEmpty ? nil : batch[...]
                    }
                }
            }
        } catch {
            abandonMerge(pending)
            throw error
        }
    }

    /// Step 3: replays the writes made since the snapshot onto the built revision, makes it the
    /// generation's data and switches reads to it. Call it where writes are serialised, as
    /// ``beginMerge()``.
    ///
    /// - Returns: nil, the merge abandoned, when its generation no longer serves.
    public func finishMerge(_ pending: PendingMerge, build: BuildStatistics) throws -> MergeInfo? {
        do {
            return try layout.withLock { () throws -> MergeInfo? in
                let serving = try current()
                guard serving.number == pending.generation, layout.revision(pending.generation) < pending.revision,
                      let log = merging.withLock({ $0 }), log.generation == pending.generation, log.revision == pending.revision else {
                    abandonMerge(pending)
                    return nil
                }
                let path = layout.environmentPath(pending.generation, revision: pending.revision)
                let merged = try Generation.shared(number: pending.generation, revision: pending.revision, path: path, readOnly: false)
                try apply(log.changes, to: merged)
                try merged.environment.sync(force: true)
                try layout.writeRevision(pending.revision, pending.generation)
                merging.withLock { $0 = nil }
                state.withLock { state in
                    if state?.current.number == pending.generation { state?.current = merged }
                }
                // Readers still on the replaced revision keep its files mapped until they finish.
                layout.removeStaleRevisions(pending.generation)
                return MergeInfo(generation: pending.generation, revision: pending.revision, entries: try merged.liveCount(),
                                 delta: pending.delta, replayed: log.changes.count, build: build)
            }
        } catch {
            abandonMerge(pending)
            throw error
        }
    }

    /// Forgets a merge that will not finish and removes what it built. (Its log ends, so writes
    /// stop being recorded for it.)
    public func abandonMerge(_ pending: PendingMerge) {
        merging.withLock { log in
            if log?.generation == pending.generation, log?.revision == pending.revision { log = nil }
        }
        if layout.revision(pending.generation) != pending.revision {
            try? FileManager.default.removeItem(atPath: layout.environmentPath(pending.generation, revision: pending.revision))
        }
    }

    /// The three steps at once, on this thread: for tools and tests that write to a shard of their
    /// own (a node merges in the background instead: ``beginMerge()``).
    @discardableResult
    public func merge() throws -> MergeInfo? {
        guard let pending = try beginMerge() else { return nil }
        let build = try buildMerge(pending)
        return try finishMerge(pending, build: build)
    }
}

/// The writes a merge must carry to the revision it builds: every write made to the generation
/// after the merge's snapshot.
struct MergeLog {
    let generation: Int
    /// The revision being built.
    let revision: Int
    var changes: [Upload.Change]
}
