import Catalog
import Cluster
import Foundation
import Index
import Synchronization
import Wire
import WireConversions

/// A zero-downtime full reindex of a live cluster: `typeahead admin reindex --catalog FILE`.
///
/// 1. **Validate** the whole catalog first, streaming it once: every bad line is reported with
///    its line number and nothing is sent (unless ``Options/skipInvalid``). The pass also counts
///    each shard's entries and fingerprints the catalog, its sharding and the index parameters:
///    the *label* of the new generation.
/// 2. **Pick the generation**: a replica that already holds an upload or a generation with this
///    label means an earlier run got that far — continue it with the same number. Otherwise a
///    number above every generation on every replica, so all of them build the same number.
/// 3. **Upload** each shard's entries (read again from the file, in bounded batches) to every
///    replica of the shard, from where each replica's upload stands. A replica that goes away
///    (killed, restarted, unreachable) is waited for and resumed, up to ``Options/patience``.
/// 4. **Build** on every replica (staged: the old generation keeps serving).
/// 5. **Activate** on every replica. Coordinators pin a generation for every query and switch to
///    the new one when the first replica serves it, since every shard holds it by then — so no
///    query sees a mix (``Coordinator/GenerationChoice``). The old generation stays for rollback.
/// 6. **Confirm** every known coordinator serves the new generation.
///
/// Interrupted anywhere, the cluster keeps serving the old generation (or, after step 5 began,
/// the new one everywhere), and running the same command again continues.
public struct Reindex: Sendable {
    public struct Options: Sendable {
        public var catalog: String
        public var skipInvalid = false
        public var parameters = IndexParameters()
        /// Entries per upload batch (at most 1000, the node's limit).
        public var batchSize = 1000
        /// How long a replica may stay unreachable before the reindex gives up (it can be rerun).
        public var patience: Duration = .seconds(120)

        public init(catalog: String) {
            self.catalog = catalog
        }
    }

    /// What happened, for the summary line.
    public struct Outcome: Sendable {
        public var generation: UInt64
        /// The generation that served before; 0 when none did (the first reindex) or when
        /// `alreadyServing`.
        public var previous: UInt64
        /// The catalog was already the serving generation: nothing changed.
        public var alreadyServing: Bool
        public var entries: Int
        public var skippedLines: Int
        public var seconds: Double
        public var resumed: Bool
    }

    let admin: AdminClient
    let options: Options
    let progress: ProgressReporter

    public init(admin: AdminClient, options: Options, progress: ProgressReporter) {
        self.admin = admin
        self.options = options
        self.progress = progress
    }

    // MARK: 1. Validation

    struct Validation {
        var perShard: [Int]
        var errors: [CatalogLineError]
        var totalErrors: Int
        var bytes: Int
        var label: String
        /// How blank or differently written values were read (see ``CatalogNotices``).
        var warnings: [String] = []
    }

    /// One pass over the catalog: errors, per-shard counts, the fingerprint.
    static func validate(_ path: String, shardCount: Int, parameters: IndexParameters) throws -> Validation {
        let reader = try CatalogReader(path: path)
        var validation = Validation(perShard: Array(repeating: 0, count: shardCount), errors: [], totalErrors: 0, bytes: 0, label: "")
        var fingerprint = Fingerprint()
        // Filterable attributes change answers, so they are part of what a generation holds (and
        // left out when there are none, so fingerprints of earlier reindexes stay the same).
        let filterable = parameters.filterableAttributes.isEmpty ? ""
            : ";filterable=" + Set(parameters.filterableAttributes).sorted().joined(separator: ",")
        fingerprint.add("shards=\(shardCount);listSize=\(parameters.listSize);heavyThreshold=\(parameters.heavyThreshold)\(filterable)\n")
        while let result = try reader.next() {
            switch result {
            case .success(let entry):
                validation.perShard[ShardAssignment.shard(of: entry.id, shardCount: shardCount)] += 1
                fingerprint.add(entry.jsonLine())
                fingerprint.add("\n")
            case .failure(let error):
                validation.totalErrors += 1
                if validation.errors.count < 20 { validation.errors.append(error) }
            }
        }
        validation.bytes = reader.summary.bytes
        validation.warnings = reader.summary.notices.warnings
        validation.label = "catalog-\(fingerprint.hex)-\(validation.perShard.reduce(0, +))"
        return validation
    }

    // MARK: The whole reindex

    public func run() async throws -> Outcome {
        let started = ContinuousClock.now
        let shardCount = admin.layout.shards.count
        // `-`: standard input can be read only once, and the catalog is read once per shard.
        let path = try Self.spoolStandardInput(options.catalog)
        defer { if path != options.catalog { try? FileManager.default.removeItem(atPath: path) } }

        progress.note("validating \(options.catalog)")
        let validation = try Self.validate(path, shardCount: shardCount, parameters: options.parameters)
        if validation.totalErrors > 0 {
            let listed = validation.errors.map { "  \($0)" }.joined(separator: "\n")
            let more = validation.totalErrors > validation.errors.count ? "\n  … and \(validation.totalErrors - validation.errors.count) more" : ""
            guard options.skipInvalid else {
                throw AdminError("the catalog has \(validation.totalErrors) invalid lines; nothing was sent and the cluster keeps serving "
                                 + "its current generation. Fix them or pass --skip-invalid:\n\(listed)\(more)")
            }
            progress.note("skipping \(validation.totalErrors) invalid lines:\n\(listed)\(more)")
        }
        for warning in validation.warnings { progress.note("warning: \(warning)") }
        let total = validation.perShard.reduce(0, +)
        progress.note("\(total) entries in \(shardCount) shards (" + validation.perShard.map(String.init).joined(separator: ", ")
                      + "), label \(validation.label)")

        // 2. Where every replica stands.
        let stats = try await allStats()
        let previous = stats.map(\.stats.currentGeneration).max() ?? 0
        let (generation, resumed) = Self.chooseGeneration(stats.map(\.stats), label: validation.label)
        progress.note(resumed ? "continuing generation \(generation) of an earlier run" : "building generation \(generation)")

        // 3–4. Upload and build on every replica.
        progress.start(shards: admin.layout.shards.map(\.name), perShard: validation.perShard)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (shard, entry) in admin.layout.shards.enumerated() {
                for (replicaIndex, replica) in entry.replicas.enumerated() {
                    let uploader = ReplicaUpload(admin: admin, options: options, path: path, shard: shard, shardCount: shardCount,
                                                 replica: replica, generation: generation, label: validation.label,
                                                 expected: validation.perShard[shard], progress: progress,
                                                 reportsProgress: replicaIndex == 0)
                    group.addTask { try await uploader.run() }
                }
            }
            try await group.waitForAll()
        }
        progress.finish()

        // 5. Activate everywhere.
        progress.note("activating generation \(generation) on every replica")
        try await activate(generation)
        // 6. Coordinators.
        try await confirmCoordinators(serve: generation)
        let elapsed = ContinuousClock.now - started
        return Outcome(generation: generation, previous: previous == generation ? 0 : previous,
                       alreadyServing: previous == generation, entries: total,
                       skippedLines: validation.totalErrors,
                       seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, resumed: resumed)
    }

    /// The new generation's number, and whether an earlier run with this label is continued.
    static func chooseGeneration(_ stats: [Typeahead_V1_StatsResponse], label: String) -> (UInt64, Bool) {
        let labelled = stats.flatMap { replica -> [UInt64] in
            var numbers = replica.generations.filter { $0.label == label }.map(\.number)
            if let upload = replica.upload, upload.label == label { numbers.append(upload.generation) }
            return numbers
        }
        if let number = labelled.max() { return (number, true) }
        let highest = stats.flatMap { replica in replica.generations.map(\.number) + [replica.currentGeneration, replica.upload?.generation ?? 0] }.max() ?? 0
        return (highest + 1, false)
    }

    func allStats() async throws -> [(endpoint: Endpoint, stats: Typeahead_V1_StatsResponse)] {
        try await withThrowingTaskGroup(of: (Endpoint, Typeahead_V1_StatsResponse).self) { group in
            for replica in admin.replicas {
                group.addTask { (replica.endpoint, try await admin.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(),
                                                                        on: replica.endpoint, timeout: .seconds(10))) }
            }
            var all: [(Endpoint, Typeahead_V1_StatsResponse)] = []
            for try await answer in group { all.append(answer) }
            return all
        }
    }

    /// Activates on every replica at once (the coordinators switch at the first; the rest only
    /// make the nodes' own "current" agree). A failure names the replicas left to activate.
    func activate(_ generation: UInt64) async throws {
        let failed = await activateEverywhere(generation)
        guard failed.isEmpty else {
            throw AdminError("generation \(generation) is built everywhere but could not be activated on every replica; queries already "
                             + "read it where it is (the coordinators pin it). Rerun to finish:\n  " + failed.joined(separator: "\n  "))
        }
    }

    /// Makes `generation` current on every replica that holds it (a no-op where it already is);
    /// returns the replicas that failed, each with its error.
    func activateEverywhere(_ generation: UInt64) async -> [String] {
        await admin.onEveryReplica { replica in
            _ = try await admin.call(Typeahead_V1_ShardService.activateGeneration,
                                     Typeahead_V1_ActivateGenerationRequest(generation: generation), on: replica.endpoint)
        }
    }

    /// Waits until every coordinator the admin knows serves `generation` in the admin's
    /// collection (they refresh on request).
    func confirmCoordinators(serve generation: UInt64) async throws {
        for coordinator in admin.layout.coordinators {
            let end = ContinuousClock.now + .seconds(30)
            var serving: UInt64 = 0
            while ContinuousClock.now < end {
                if let status = try? await admin.call(Typeahead_V1_ClusterService.status, Typeahead_V1_ClusterStatusRequest(refresh: true),
                                                      on: coordinator, timeout: .seconds(10), role: "coordinator") {
                    serving = admin.collectionState(in: status).servingGeneration
                    if serving == generation { break }
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let which = admin.layout.collections.count > 1 ? " of collection \(admin.layout.collection)" : ""
            guard serving == generation else {
                throw AdminError("coordinator \(coordinator) still serves generation \(serving)\(which), not \(generation): check its log and "
                                 + "`typeahead admin status`")
            }
            progress.note("coordinator \(coordinator) serves generation \(generation)\(which)")
        }
    }

    /// Copies standard input to a temporary file (read once, used once per shard).
    static func spoolStandardInput(_ path: String) throws -> String {
        guard path == "-" else { return path }
        let spool = NSTemporaryDirectory() + "typeahead-reindex-\(UUID().uuidString).jsonl"
        guard FileManager.default.createFile(atPath: spool, contents: nil) else {
            throw AdminError("cannot create \(spool) to hold standard input: check the space and permissions of \(NSTemporaryDirectory())")
        }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: spool))
        defer { try? out.close() }
        while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty { out.write(chunk) }
        return spool
    }
}

/// One replica's upload: begin (or resume), send the batches it lacks, finish. Transient failures
/// (the node restarting, a network blip) are waited out and resumed from where the replica stands.
struct ReplicaUpload: Sendable {
    let admin: AdminClient
    let options: Reindex.Options
    let path: String
    let shard: Int
    let shardCount: Int
    let replica: Endpoint
    let generation: UInt64
    let label: String
    let expected: Int
    let progress: ProgressReporter
    /// One replica per shard drives the progress bar (they all send the same entries).
    let reportsProgress: Bool

    /// Patience counts from the replica's last answer, not from the start: a long upload that
    /// meets a node restart late gets the whole of it too.
    func run() async throws {
        var answered = ContinuousClock.now
        var delay: Duration = .milliseconds(200)
        while true {
            do {
                try await attempt(answered: &answered)
                return
            } catch let error as AdminError where error.isTransient {
                guard ContinuousClock.now - answered < options.patience else {
                    throw AdminError("\(admin.layout.shards[shard].name) replica \(replica) stayed unreachable for \(options.patience): "
                                     + "\(error). The cluster keeps serving its current generation; rerun the same command to continue.")
                }
                progress.note("\(admin.layout.shards[shard].name) replica \(replica): \(error.description); retrying")
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            } catch let error as AdminError where error.status?.reason == IndexError.Reason.uploadBatchOutOfOrder.rawValue {
                // The replica lost batches (a restart from an older state): begin again to learn where.
                answered = .now
                continue
            }
        }
    }

    /// One pass; `answered` is set whenever the replica answers, so patience restarts from there.
    private func attempt(answered: inout ContinuousClock.Instant) async throws {
        let begin = try await admin.call(Typeahead_V1_ShardService.beginUpload,
                                         Typeahead_V1_BeginUploadRequest(generation: generation, label: label,
                                                                         parameters: Typeahead_V1_IndexParameters(options.parameters)),
                                         on: replica)
        answered = .now
        if begin.built != nil {
            if reportsProgress { progress.sent(shard: shard, entries: expected, bytes: 0, absolute: true) }
            return
        }
        let upload = begin.upload ?? Typeahead_V1_UploadInfo()
        let skip = Int(upload.batches)
        if reportsProgress { progress.sent(shard: shard, entries: Int(upload.entries), bytes: Int(upload.bytes), absolute: true) }
        let reader = try CatalogReader(path: path)
        var batch: [Typeahead_V1_Entry] = []
        batch.reserveCapacity(options.batchSize)
        var number = 0
        var entries = 0
        func send() async throws {
            defer {
                batch.removeAll(keepingCapacity: true)
                number += 1
            }
            guard number >= skip else { return }
            let request = Typeahead_V1_AppendUploadRequest(generation: generation, batch: UInt64(number), entries: batch)
            let size = request.serializedBytes().count
            _ = try await admin.call(Typeahead_V1_ShardService.appendUpload, request, on: replica)
            answered = .now
            if reportsProgress { progress.sent(shard: shard, entries: batch.count, bytes: size, absolute: false) }
        }
        while let result = try reader.next() {
            guard case .success(let entry) = result, ShardAssignment.shard(of: entry.id, shardCount: shardCount) == shard else { continue }
            batch.append(Typeahead_V1_Entry(entry))
            entries += 1
            if batch.count == options.batchSize { try await send() }
        }
        if !batch.isEmpty { try await send() }
        guard entries == expected else {
            throw AdminError("the catalog changed while it was read (\(entries) entries for shard \(shard), \(expected) when validated); "
                             + "rerun on a file that does not change")
        }
        _ = try await admin.call(Typeahead_V1_ShardService.finishUpload,
                                 Typeahead_V1_FinishUploadRequest(generation: generation, batches: UInt64(number), entries: UInt64(entries)),
                                 on: replica, timeout: .seconds(3600))
    }
}

/// FNV-1a over two 64-bit lanes (different offset bases): a 128-bit fingerprint of a catalog,
/// to recognise an earlier run's upload — not a security measure.
struct Fingerprint {
    private var a: UInt64 = 0xcbf2_9ce4_8422_2325
    private var b: UInt64 = 0x6c62_272e_07bb_0142

    mutating func add(_ text: String) {
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
    }

    var hex: String {
        func pad(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return pad(a) + pad(b)
    }
}
