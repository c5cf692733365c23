import Catalog
import Storage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A generation being uploaded in batches, before it is built: how a live cluster is reindexed.
///
/// `typeahead admin reindex` streams each shard's part of a catalog to every replica in numbered
/// batches; the replica appends each batch to a spool file (a JSON Lines catalog, fsynced), and
/// builds the generation from it when told the upload is finished. Memory on both sides stays
/// bounded by a batch until the build, and an upload survives a crashed admin, a restarted node or
/// a lost answer:
/// - batches are numbered; a batch the replica already has is acknowledged again and not appended
///   twice, a batch past the next one is refused, so the sender learns where to continue;
/// - the state (`UPLOAD`: generation, label, batches, entries, spool length) is replaced
///   atomically after each batch, and on reopen the spool is cut back to the recorded length, so a
///   batch half-written when the node died is simply sent again;
/// - the `label` (the admin's fingerprint of the catalog and its sharding) says which catalog the
///   upload holds: beginning the same generation and label again resumes; anything else discards
///   the old upload and starts over.
///
/// Writes made while the upload is under way (upserts and deletes to the serving generation) are
/// logged beside it, in order, and replayed onto the new generation once it is built, so a
/// reindex does not lose them (``Shard/upsert(_:)``).
///
/// ```
/// DIR/upload/
///   UPLOAD        {"generation":7,"label":"…","batches":12,"entries":12000,"bytes":3841210,"listSize":32,"heavyThreshold":32,
///                 "filterableAttributes":["color"]}
///   entries.jsonl the batches so far, one catalog entry per line
///   changes.jsonl writes made meanwhile: "+" and a catalog entry, or "-" and a JSON string id, per line
/// ```
/// One upload per shard at a time. Not thread-safe by itself: ``Shard`` runs these under its
/// directory lock, and a node calls them from its single writer queue.
struct Upload {
    struct State: Codable, Equatable {
        var generation: Int
        var label: String
        var batches: Int
        var entries: Int
        var bytes: Int
        var listSize: Int
        var heavyThreshold: Int
        /// The generation's filterable attributes; absent in uploads begun before attribute tokens.
        var filterableAttributes: [String]?
    }

    let directory: String
    var statePath: String { directory + "/UPLOAD" }
    var spoolPath: String { directory + "/entries.jsonl" }
    var changesPath: String { directory + "/changes.jsonl" }

    /// A write to carry from the serving generation to the one on its way.
    enum Change: Equatable {
        case upsert([CatalogEntry])
        case delete([String])
    }

    init(shardDirectory: String) {
        directory = shardDirectory + "/upload"
    }

    func read() throws -> State? {
        guard let data = FileManager.default.contents(atPath: statePath) else { return nil }
        do {
            return try JSONDecoder().decode(State.self, from: data)
        } catch {
            throw IndexError.corrupt("\(statePath) cannot be read: \(error)")
        }
    }

    /// Replaces the state atomically (write, fsync, rename, fsync the directory).
    func write(_ state: State) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try DurableFile.replace(statePath, with: try encoder.encode(state) + Data("\n".utf8))
    }

    /// Starts an empty upload (removing any other).
    func start(_ state: State) throws {
        try remove()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw IndexError(.internal, "cannot create \(directory): \(error)")
        }
        guard FileManager.default.createFile(atPath: spoolPath, contents: nil) else {
            throw IndexError(.internal, "cannot create the upload spool \(spoolPath)")
        }
        try write(state)
    }

    func remove() throws {
        guard FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.removeItem(atPath: directory)
        } catch {
            throw IndexError(.internal, "cannot remove \(directory): \(error)")
        }
    }

    /// Appends one batch durably and returns the new state.
    func append(_ entries: [CatalogEntry], to state: State) throws -> State {
        var bytes: [UInt8] = []
        for entry in entries {
            bytes += Array(entry.jsonLine().utf8)
            bytes.append(0x0A)
        }
        // Cut back to what the state records: a batch half-written before a crash is sent again.
        try DurableFile.append(bytes, to: spoolPath, at: state.bytes)
        var next = state
        next.batches += 1
        next.entries += entries.count
        next.bytes += bytes.count
        try write(next)
        return next
    }

    /// An upload is in progress (its state file exists).
    var exists: Bool { FileManager.default.fileExists(atPath: statePath) }

    /// Logs a write durably (appended and synced before the write is applied anywhere, so a write
    /// that was acknowledged is in the log).
    func record(_ change: Change) throws {
        var bytes: [UInt8] = []
        switch change {
        case .upsert(let entries):
            for entry in entries {
                bytes.append(UInt8(ascii: "+"))
                bytes += Array(entry.jsonLine().utf8)
                bytes.append(0x0A)
            }
        case .delete(let ids):
            for id in ids {
                bytes.append(UInt8(ascii: "-"))
                do {
                    bytes += Array(try JSONSerialization.data(withJSONObject: id, options: .fragmentsAllowed))
                } catch {
                    throw IndexError(.internal, "cannot log the delete of \(id): \(error)")
                }
                bytes.append(0x0A)
            }
        }
        try DurableFile.append(bytes, to: changesPath)
    }

    /// The logged writes in order, consecutive ones of a kind as one batch. A last line cut short
    /// by a crash was never acknowledged and is left out; a bad line before it means corruption.
    func changes() throws -> [Change] {
        guard let data = FileManager.default.contents(atPath: changesPath) else { return [] }
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        var changes: [Change] = []
        var upserts: [CatalogEntry] = [], deletes: [String] = []
        func endRun(before upserting: Bool) {
            // A run of the other kind ends here: keep the order of writes.
            if upserting, !deletes.isEmpty { changes.append(.delete(deletes)); deletes.removeAll() }
            if !upserting, !upserts.isEmpty { changes.append(.upsert(upserts)); upserts.removeAll() }
        }
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let body = line.dropFirst()
            if line.first == UInt8(ascii: "+"), case .success(let entry) = parseCatalogLine(body, line: index + 1) {
                endRun(before: true)
                upserts.append(entry)
            } else if line.first == UInt8(ascii: "-"),
                      let id = try? JSONSerialization.jsonObject(with: Data(body), options: .fragmentsAllowed) as? String {
                endRun(before: false)
                deletes.append(id)
            } else if index != lines.count - 1 {
                // Unreadable: fine only as the torn tail (the last line, without its newline).
                throw IndexError.corrupt("\(changesPath) line \(index + 1) cannot be read")
            }
        }
        endRun(before: true)
        endRun(before: false)
        return changes
    }

    /// Every entry uploaded, read back through the catalog reader (they were valid when appended)
    /// a batch at a time, for ``Shard/buildGeneration(parameters:number:label:format:onStage:batches:)``:
    /// a node builds an uploaded generation of any size in the build's bounded memory. Throws
    /// DATA_LOSS if the spool cannot be read back, or holds fewer entries or bytes than were
    /// acknowledged; entries past the acknowledged count (a batch never acknowledged) are left out.
    func batches(_ state: State) throws -> () throws -> ArraySlice<CatalogEntry>? {
        let stream: CatalogStream
        do {
            stream = try CatalogStream(path: spoolPath, policy: .strict)
        } catch {
            throw IndexError.corrupt("\(spoolPath) cannot be read back: \(error)")
        }
        var given = 0
        let spoolPath = spoolPath
        return {
            let batch: [CatalogEntry]?
            do {
                batch = given < state.entries ? try stream.nextBatch() : nil
            } catch {
                throw IndexError.corrupt("\(spoolPath) cannot be read back: \(error)")
            }
            guard let batch else {
                guard given == state.entries else {
                    throw IndexError.corrupt("\(spoolPath) holds \(given) entries; \(state.entries) were uploaded")
                }
                return nil
            }
            // Anything past the recorded count is a batch that was never acknowledged.
            let kept = batch.prefix(state.entries - given)
            given += kept.count
            if given == state.entries, stream.summary.bytes < state.bytes {
                // Read to the end of this batch: the acknowledged bytes must all be there.
                throw IndexError.corrupt("\(spoolPath) holds \(stream.summary.bytes) bytes; \(state.bytes) were uploaded")
            }
            return kept
        }
    }
}
