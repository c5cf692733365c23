import Catalog
import Cluster
import Foundation
import Index
import Synchronization
import Wire
import WireConversions

/// The admin commands besides reindex: status, updates routed to their shard, rollback, dropping
/// a generation, compaction. Each reports every replica it could not reach or change, since a
/// cluster where replicas disagree must be repaired (rerunning the command is always safe).
public enum Operations {
    // MARK: Status

    /// One replica's state: its own Stats, and what a coordinator thinks of it (if one was asked).
    public struct ReplicaReport: Sendable {
        public var shard: String
        public var endpoint: Endpoint
        public var stats: Typeahead_V1_StatsResponse?
        public var error: String?
        public var seenByCoordinator: Typeahead_V1_ReplicaState?
    }

    public struct StatusReport: Sendable {
        public var cluster: String
        /// The collection reported on, and every collection of the cluster.
        public var collection: String
        public var collections: [String]
        public var coordinators: [(Endpoint, Typeahead_V1_ClusterStatusResponse?, String?)]
        public var replicas: [ReplicaReport]
    }

    public static func status(_ admin: AdminClient) async -> StatusReport {
        var coordinators: [(Endpoint, Typeahead_V1_ClusterStatusResponse?, String?)] = []
        for endpoint in admin.layout.coordinators {
            do {
                coordinators.append((endpoint, try await admin.call(Typeahead_V1_ClusterService.status, Typeahead_V1_ClusterStatusRequest(),
                                                                    on: endpoint, timeout: .seconds(10), role: "coordinator"), nil))
            } catch {
                coordinators.append((endpoint, nil, "\(error)"))
            }
        }
        let seen = coordinators.compactMap(\.1).first.map(admin.collectionState(in:))
        let reports = await withTaskGroup(of: ReplicaReport.self) { group in
            for replica in admin.replicas {
                group.addTask {
                    let view = seen?.shards.first { $0.name == replica.name }?.replicas.first { $0.address == replica.endpoint.description }
                    do {
                        let stats = try await admin.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: replica.endpoint,
                                                         timeout: .seconds(10))
                        return ReplicaReport(shard: replica.name, endpoint: replica.endpoint, stats: stats, error: nil, seenByCoordinator: view)
                    } catch {
                        return ReplicaReport(shard: replica.name, endpoint: replica.endpoint, stats: nil, error: "\(error)", seenByCoordinator: view)
                    }
                }
            }
            var all: [ReplicaReport] = []
            for await report in group { all.append(report) }
            return all
        }
        let order = Dictionary(admin.replicas.enumerated().map { ($0.element.endpoint, $0.offset) }, uniquingKeysWith: { a, _ in a })
        return StatusReport(cluster: admin.layout.name, collection: admin.layout.collection, collections: admin.layout.collections,
                            coordinators: coordinators,
                            replicas: reports.sorted { order[$0.endpoint, default: 0] < order[$1.endpoint, default: 0] })
    }

    /// The report as a table for people.
    public static func table(_ report: StatusReport) -> String {
        var lines: [String] = []
        if report.collections.count > 1 {
            lines.append("collection \(report.collection) (of \(report.collections.joined(separator: ", ")))")
        }
        for (endpoint, whole, error) in report.coordinators {
            if let whole {
                let status = AdminClient.state(of: report.collection, in: whole)
                lines.append("coordinator \(endpoint): \(status.ready ? "ready" : "NOT READY"), serving generation \(status.servingGeneration)")
            } else {
                lines.append("coordinator \(endpoint): unreachable (\(error ?? ""))")
            }
        }
        let latency = Dictionary(report.coordinators.compactMap(\.1).first.map { AdminClient.state(of: report.collection, in: $0) }?
            .shards.map { ($0.name, ($0.p50Us, $0.p95Us)) } ?? [],
                                 uniquingKeysWith: { a, _ in a })
        let header = ["SHARD", "REPLICA", "UP", "GEN", "GENERATIONS", "ENTRIES", "DISK", "MAP", "P50", "P95", "UPLOAD / ERROR"]
        var rows: [[String]] = [header]
        for replica in report.replicas {
            let timing = latency[replica.shard].map { [micros($0.0), micros($0.1)] } ?? ["-", "-"]
            guard let stats = replica.stats else {
                rows.append([replica.shard, replica.endpoint.description, "no", "-", "-", "-", "-", "-"] + timing + [replica.error ?? ""])
                continue
            }
            let up = replica.seenByCoordinator.map { $0.up ? "yes" : "down" } ?? (stats.currentGeneration != 0 ? "yes" : "no")
            let generations = stats.generations.map { "\($0.number) \(state($0.state))" }.joined(separator: ", ")
            let upload = stats.upload.map { "uploading \($0.generation): \($0.batches) batches, \($0.entries) entries" } ?? ""
            rows.append([replica.shard, replica.endpoint.description, up, "\(stats.currentGeneration)", generations, "\(stats.entries)",
                         bytes(stats.usedBytes), bytes(stats.mapBytes)] + timing + [upload])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            lines.append(zip(row, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The report as JSON (`admin status --json`).
    public static func json(_ report: StatusReport) -> String {
        func object(_ members: [(String, JSONValue)]) -> JSONValue { .object(members) }
        let coordinators = JSONValue.array(report.coordinators.map { endpoint, whole, error in
            let status = whole.map { AdminClient.state(of: report.collection, in: $0) }
            return object([("address", .string(endpoint.description)), ("reachable", .bool(status != nil)),
                    ("ready", .bool(status?.ready ?? false)), ("servingGeneration", .unsigned(status?.servingGeneration ?? 0)),
                    ("error", .string(error ?? ""))])
        })
        let replicas = JSONValue.array(report.replicas.map { replica in
            let stats = replica.stats
            return object([
                ("shard", .string(replica.shard)), ("address", .string(replica.endpoint.description)),
                ("reachable", .bool(stats != nil)), ("up", .bool(replica.seenByCoordinator.map(\.up) ?? ((stats?.currentGeneration ?? 0) != 0))),
                ("currentGeneration", .unsigned(stats?.currentGeneration ?? 0)), ("entries", .unsigned(stats?.entries ?? 0)),
                ("usedBytes", .unsigned(stats?.usedBytes ?? 0)), ("mapBytes", .unsigned(stats?.mapBytes ?? 0)),
                ("generations", .array((stats?.generations ?? []).map { info in
                    object([("number", .unsigned(info.number)), ("state", .string(state(info.state))), ("entries", .unsigned(info.entries)),
                            ("bytes", .unsigned(info.bytes)), ("label", .string(info.label))])
                })),
                ("upload", stats?.upload.map { upload in
                    object([("generation", .unsigned(upload.generation)), ("label", .string(upload.label)),
                            ("batches", .unsigned(upload.batches)), ("entries", .unsigned(upload.entries))])
                } ?? .null),
                ("error", .string(replica.error ?? "")),
            ])
        })
        return object([("cluster", .string(report.cluster)), ("collection", .string(report.collection)), ("coordinators", coordinators),
                       ("replicas", replicas)]).serialized() + "\n"
    }

    static func state(_ state: Typeahead_V1_GenerationInfo.State) -> String {
        switch state {
        case .current: "current"
        case .previous: "previous"
        case .staged: "staged"
        default: "unknown"
        }
    }

    static func bytes(_ value: UInt64) -> String {
        value >= 1 << 30 ? String(format: "%.1f GB", Double(value) / Double(1 << 30))
            : value >= 1 << 20 ? String(format: "%.1f MB", Double(value) / Double(1 << 20)) : String(format: "%.0f kB", Double(value) / 1024)
    }

    static func micros(_ value: UInt32) -> String {
        value == 0 ? "-" : value < 1000 ? "\(value)µs" : String(format: "%.1fms", Double(value) / 1000)
    }

    // MARK: Updates

    /// Upserts a JSON Lines file: validated first (nothing sent if a line is bad, unless
    /// `skipInvalid`), each entry sent to every replica of its shard in batches of 1000.
    /// `report` hears, before anything is sent, each line skipped and one warning per kind of
    /// value read as meant (blank optional fields…, see `CatalogNotices`).
    public static func upsert(_ admin: AdminClient, path: String, skipInvalid: Bool,
                              report: (String) -> Void = { _ in }) async throws -> UpdateSummary {
        let loaded: (entries: [CatalogEntry], errors: [CatalogLineError], summary: CatalogSummary)
        do {
            loaded = try loadCatalog(path: path, policy: skipInvalid ? .skipInvalid : .strict)
        } catch let error as CatalogValidationError {
            throw AdminError("\(error.description)\nnothing was sent. Fix the lines above or pass --skip-invalid.")
        }
        for error in loaded.errors.prefix(20) { report("skipped \(error)") }
        if loaded.errors.count > 20 { report("… and \(loaded.errors.count - 20) more invalid lines skipped") }
        for warning in loaded.summary.notices.warnings { report("warning: \(warning)") }
        var byShard = [[Typeahead_V1_Entry]](repeating: [], count: admin.layout.shards.count)
        for entry in loaded.entries {
            byShard[ShardAssignment.shard(of: entry.id, shardCount: byShard.count)].append(Typeahead_V1_Entry(entry))
        }
        return try await applyToShards(admin, byShard) { batch, replica in
            UpdateSummary(try await admin.call(Typeahead_V1_ShardService.upsert, Typeahead_V1_UpsertRequest(entries: batch),
                                               on: replica).summary ?? .init())
        }
    }

    /// Deletes ids, each on every replica of its shard.
    public static func delete(_ admin: AdminClient, ids: [String]) async throws -> UpdateSummary {
        var byShard = [[String]](repeating: [], count: admin.layout.shards.count)
        for id in ids { byShard[ShardAssignment.shard(of: id, shardCount: byShard.count)].append(id) }
        return try await applyToShards(admin, byShard) { batch, replica in
            UpdateSummary(try await admin.call(Typeahead_V1_ShardService.delete, Typeahead_V1_DeleteRequest(ids: batch),
                                               on: replica).summary ?? .init())
        }
    }

    /// Sends each shard's items in batches of 1000 to every replica of the shard. The summary
    /// counts the first replica of each shard (all replicas apply the same changes); a replica that
    /// fails is named, since it now disagrees with the others until the command is rerun.
    static func applyToShards<Item: Sendable>(_ admin: AdminClient, _ byShard: [[Item]],
                                              send: @escaping @Sendable ([Item], Endpoint) async throws -> UpdateSummary) async throws -> UpdateSummary {
        let results = await withTaskGroup(of: (shard: Int, replica: Int, summary: UpdateSummary?, error: String?).self) { group in
            for (shard, items) in byShard.enumerated() where !items.isEmpty {
                for (index, replica) in admin.layout.shards[shard].replicas.enumerated() {
                    group.addTask {
                        var total = UpdateSummary()
                        do {
                            for start in stride(from: 0, to: items.count, by: 1000) {
                                let part = try await send(Array(items[start..<min(items.count, start + 1000)]), replica)
                                total.inserted += part.inserted
                                total.replaced += part.replaced
                                total.deleted += part.deleted
                                total.missing += part.missing
                            }
                            return (shard, index, total, nil)
                        } catch {
                            return (shard, index, nil, "\(admin.layout.shards[shard].name) \(replica): \(error)")
                        }
                    }
                }
            }
            var all: [(shard: Int, replica: Int, summary: UpdateSummary?, error: String?)] = []
            for await result in group { all.append(result) }
            return all
        }
        let failures = results.compactMap(\.error).sorted()
        guard failures.isEmpty else {
            let listed = "\n  " + failures.joined(separator: "\n  ")
            if failures.count == results.count {
                throw AdminError("no replica took the change; nothing changed:" + listed)
            }
            throw AdminError("some replicas did not take the change and now disagree with the others; rerun the command (it is safe "
                             + "to repeat) once they are back:" + listed)
        }
        var summary = UpdateSummary()
        for result in results where result.replica == 0 {
            guard let part = result.summary else { continue }
            summary.inserted += part.inserted
            summary.replaced += part.replaced
            summary.deleted += part.deleted
            summary.missing += part.missing
        }
        return summary
    }

    // MARK: Generations

    /// Every replica makes its previous generation current again. Coordinators switch back when
    /// the last replica has (the generation every shard serves wins; see GenerationChoice).
    /// Returns the generation that serves afterwards (every coordinator is seen to serve it).
    public static func rollback(_ admin: AdminClient) async throws -> UInt64 {
        let serving = Mutex<Set<UInt64>>([])
        let failures = await admin.onEveryReplica { replica in
            let answer = try await admin.call(Typeahead_V1_ShardService.rollback, Typeahead_V1_RollbackRequest(), on: replica.endpoint)
            if let current = answer.generations.first(where: { $0.state == .current }) { serving.withLock { _ = $0.insert(current.number) } }
        }
        guard failures.isEmpty else {
            throw AdminError("rollback did not happen everywhere; queries keep reading the newer generation until every replica has "
                             + "rolled back. Fix and rerun:\n  " + failures.joined(separator: "\n  "))
        }
        let generations = serving.withLock { $0 }
        guard generations.count == 1, let generation = generations.first else {
            throw AdminError("after the rollback the replicas serve different generations (\(generations.sorted())); "
                             + "`typeahead admin status` shows which, and a reindex brings them together")
        }
        try await Reindex(admin: admin, options: .init(catalog: ""), progress: ProgressReporter(style: .silent))
            .confirmCoordinators(serve: generation)
        return generation
    }

    /// Makes generation `number` current on every replica (the current one becomes the previous),
    /// then waits until every coordinator serves it. Unlike ``rollback(_:)`` it is idempotent: a
    /// rerun after a partial failure finishes the job instead of swapping the replicas that had
    /// already switched back again, and it reaches any generation a replica still holds, not only
    /// the previous one.
    public static func activate(_ admin: AdminClient, generation number: UInt64) async throws {
        let reindex = Reindex(admin: admin, options: .init(catalog: ""), progress: ProgressReporter(style: .silent))
        let failed = await reindex.activateEverywhere(number)
        guard failed.isEmpty else {
            throw AdminError("generation \(number) is not current everywhere yet (a replica that lacks it cannot switch; "
                             + "`typeahead admin status` lists what each holds); rerun once fixed:\n  " + failed.joined(separator: "\n  "))
        }
        try await reindex.confirmCoordinators(serve: number)
    }

    /// Removes generation `number` from every replica that has it (never the serving one).
    /// Returns how many replicas held it; none is an error (a mistyped number, most likely).
    @discardableResult
    public static func dropGeneration(_ admin: AdminClient, _ number: UInt64) async throws -> Int {
        let dropped = Atomic<Int>(0)
        let failures = await admin.onEveryReplica { replica in
            do {
                _ = try await admin.call(Typeahead_V1_ShardService.dropGeneration, Typeahead_V1_DropGenerationRequest(generation: number),
                                         on: replica.endpoint)
                dropped.add(1, ordering: .relaxed)
            } catch let error as AdminError where error.status?.code == .notFound {
                return   // nothing to drop there
            }
        }
        guard failures.isEmpty else { throw AdminError("could not drop generation \(number) everywhere:\n  " + failures.joined(separator: "\n  ")) }
        let count = dropped.load(ordering: .relaxed)
        guard count > 0 else {
            throw AdminError("no replica holds generation \(number); `typeahead admin status` lists the generations each one has")
        }
        return count
    }

    /// Rewrites every replica's serving generation compactly as one new generation number, then
    /// activates it cluster-wide like a reindex (no query sees a mix). A write between a replica's
    /// copy and the activation reaches the copy too (a node writes staged generations as well).
    public static func compact(_ admin: AdminClient, progress: ProgressReporter) async throws -> (generation: UInt64, before: UInt64, after: UInt64) {
        let reindex = Reindex(admin: admin, options: .init(catalog: ""), progress: progress)
        let stats = try await reindex.allStats()
        let generation = (stats.flatMap { $0.stats.generations.map(\.number) + [$0.stats.currentGeneration, $0.stats.upload?.generation ?? 0] }.max() ?? 0) + 1
        let sizes = await withTaskGroup(of: (UInt64, UInt64, String?).self) { group in
            for replica in admin.replicas {
                group.addTask {
                    do {
                        let answer = try await admin.call(Typeahead_V1_ShardService.compact, Typeahead_V1_CompactRequest(generation: generation),
                                                          on: replica.endpoint, timeout: .seconds(3600))
                        return (answer.bytesBefore, answer.generation?.bytes ?? 0, nil)
                    } catch {
                        return (0, 0, "\(replica.name) \(replica.endpoint): \(error)")
                    }
                }
            }
            var all: [(UInt64, UInt64, String?)] = []
            for await size in group { all.append(size) }
            return all
        }
        let failures = sizes.compactMap(\.2)
        guard failures.isEmpty else {
            throw AdminError("compaction failed on some replicas; nothing was activated (the compacted copies stay staged; "
                             + "`typeahead admin drop-generation \(generation)` removes them):\n  " + failures.joined(separator: "\n  "))
        }
        try await reindex.activate(generation)
        try await reindex.confirmCoordinators(serve: generation)
        return (generation, sizes.map(\.0).reduce(0, +), sizes.map(\.1).reduce(0, +))
    }
}
