import Catalog
import Foundation
import Index
import Load
import WireConversions

/// `typeahead bench`: build rate, index size, open time and suggest latency of the index, with
/// SQLite FTS5 measured in the same run on the same catalog and keystroke workload.
///
/// Numbers are printed, never asserted: the machine is shared and noisy, so the ratio to the peer
/// measured side by side is the figure to trust.
public struct Benchmark {
    public struct Dataset: Sendable {
        public var name: String
        /// A JSON Lines catalog; nil means `synthetic` entries are generated (and written to a file
        /// first, so that parsing is measured too).
        public var path: String?
        public var synthetic: Int
        public init(name: String, path: String?, synthetic: Int = 0) {
            self.name = name
            self.path = path
            self.synthetic = synthetic
        }
    }

    public var datasets: [Dataset]
    public var sessions = 2000
    public var compareWithSQLite = true
    /// Print this many of the slowest keystrokes per typo mode (diagnostics).
    public var slowest = 0
    public var workDirectory: String
    /// Where to write each dataset's keystroke workload (`NAME.keystrokes`, one field text a line),
    /// so that other tools (h2load, `typeahead load --queries`) replay exactly what was measured.
    public var keystrokesDirectory: String?
    /// False: build each index and write its workload, but measure nothing (for scripts that serve
    /// the built shard from `workDirectory/NAME/shard`).
    public var measure = true
    /// Measure ranking quality (``QualityBenchmark``, `sessions` typed titles) instead of latency.
    public var quality = false
    /// After the latency figures, re-weight this percentage of the entries with upserts and
    /// measure the same workload again (live updates; 0: skip).
    public var updatedPercent = 0
    /// With `updatedPercent`: leave the delta unmerged (no merged figures), so that the updated
    /// shard stays in `workDirectory/NAME/shard` for profiling the keystrokes it slows.
    public var mergeAfterUpdates = true
    /// Where report lines go; by default straight to standard output, unbuffered, so a long run
    /// shows progress even when piped to a file.
    public var output: (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }

    public init(datasets: [Dataset], workDirectory: String) {
        self.datasets = datasets
        self.workDirectory = workDirectory
    }

    public func run() throws {
        for dataset in datasets { try run(dataset) }
    }

    private func run(_ dataset: Dataset) throws {
        let directory = workDirectory + "/" + dataset.name
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var catalogPath = dataset.path ?? ""
        if dataset.path == nil {
            catalogPath = directory + "/catalog.jsonl"
            guard FileManager.default.createFile(atPath: catalogPath, contents: nil) else {
                throw PeerError("cannot create \(catalogPath)")
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: catalogPath))
            var buffer = ""
            for entry in SyntheticCatalog(seed: 42, count: dataset.synthetic) {
                buffer += entry.jsonLine()
                buffer += "\n"
                if buffer.utf8.count > 1 << 20 {
                    handle.write(Data(buffer.utf8))
                    buffer = ""
                }
            }
            handle.write(Data(buffer.utf8))
            try handle.close()
        }
        let inputBytes = (try FileManager.default.attributesOfItem(atPath: catalogPath)[.size] as? NSNumber)?.intValue ?? 0

        // Build as `typeahead index` does: the catalog streamed from its file, read and analysed
        // batch by batch while the batches before are interned and sorted (loading it whole and
        // then indexing the array measured neither that overlap nor the command's memory).
        let start = monotonicNanoseconds()
        let stream = try CatalogStream(path: catalogPath, policy: .skipInvalid)
        let shardDirectory = directory + "/shard"
        var readEnded = start
        let info = try Shard(directory: shardDirectory).build {
            if let batch = try stream.nextBatch() { return batch[...] }
            readEnded = monotonicNanoseconds()
            return nil
        }
        let built = monotonicNanoseconds()
        // The workload and the peer need the entries themselves: read once more, untimed by the
        // build (the parse alone is printed for scale).
        let loadStart = monotonicNanoseconds()
        let loaded = try loadCatalog(path: catalogPath, policy: .skipInvalid)
        let parseSeconds = Self.seconds(monotonicNanoseconds() - loadStart)
        let entries = loaded.entries
        output("== \(dataset.name): \(entries.count) entries, input \(Self.megabytes(inputBytes))")
        output(String(format: "  build      %.2f s total: %.0f entries/s (read and analyse %.2f s, write %.2f s; parse alone %.2f s = %.0f entries/s)",
                      Self.seconds(built - start), Double(entries.count) / Self.seconds(built - start),
                      Self.seconds(readEnded - start), Self.seconds(built - readEnded),
                      parseSeconds, Double(entries.count) / parseSeconds))
        if let stages = info.build?.stages {
            output("             stages: " + stages.map { String(format: "%@ %.2f s", $0.name, $0.seconds) }.joined(separator: ", "))
        }
        output(String(format: "  size       %@ on disk, %.0f bytes/entry, %.2f× the input file",
                      Self.megabytes(info.bytes), Double(info.bytes) / Double(max(1, entries.count)),
                      Double(info.bytes) / Double(max(1, inputBytes))))
        if let build = info.build {
            output("             \(build.terms) terms, \(build.postings) postings, \(build.heavyNodes) heavy trie nodes")
        }

        // Open a fresh handle and answer one query.
        let openStart = monotonicNanoseconds()
        // Read-only, as a serving node opens it, unless the live-update pass will write to it.
        let shard = try Shard(directory: shardDirectory, readOnly: updatedPercent == 0)
        _ = try shard.suggest(SuggestRequest(text: "a"))
        output(String(format: "  open       %.2f ms to open the shard and answer the first query", Self.seconds(monotonicNanoseconds() - openStart) * 1000))
        // A node maps an opened generation's pages into its process in the background
        // (``Shard/prefault()``); the latencies below are a warm node's, not page faults'.
        let mapStart = monotonicNanoseconds()
        let mapped = try shard.prefault()
        output(String(format: "  map        %.1f MB mapped in %.1f ms (a node does it in the background after opening a generation)",
                      Double(mapped) / 1e6, Self.seconds(monotonicNanoseconds() - mapStart) * 1000))

        if quality && measure {
            let result = try QualityBenchmark(sessions: sessions).run(entries: entries, shard: shard)
            output(String(format: "  quality    %d sessions typed: intended entry in the top 10 at the last keystroke: clean %.3f (%d/%d), one typo %.3f (%d/%d)",
                          result.sessions, result.cleanRate, result.cleanFound, result.cleanSessions,
                          result.typoRate, result.typoFound, result.typoSessions))
            output(String(format: "             mean keystrokes until it is in the top 5: %.2f (%d sessions never)",
                          result.meanKeystrokesToTop5, result.neverInTop5))
            output(String(format: "             completions offer the title's word as it spells it: %.3f of %d clean keystrokes inside a word",
                          result.titleWordOfferedRate, result.midWordKeystrokes))
            for miss in result.misses {
                output("             missed: \"\(miss.typed)\" meant \(miss.intended.title) [\(miss.intended.categories.joined(separator: ", "))] weight \(miss.intended.weight)")
            }
            return
        }
        let workload = KeystrokeWorkload(entries: entries, sessions: sessions, seed: 7)
        // Warm-up keystrokes of other sessions: the index's caches hold nothing of the measured
        // ones beforehand (within the measured workload they fill as they would in production).
        let warmup = KeystrokeWorkload(entries: entries, sessions: max(1, min(sessions, 200)), seed: 8)
        output("  workload   \(workload.queries.count) keystrokes from \(sessions) typed titles (20% with a typo)")
        if let keystrokesDirectory {
            try? FileManager.default.createDirectory(atPath: keystrokesDirectory, withIntermediateDirectories: true)
            let path = keystrokesDirectory + "/" + dataset.name + ".keystrokes"
            let lines = workload.queries.map(\.text).filter { !$0.contains("\n") && !$0.contains("\r") }
            guard FileManager.default.createFile(atPath: path, contents: Data((lines.joined(separator: "\n") + "\n").utf8)) else {
                throw PeerError("cannot write \(path)")
            }
            output("             written to \(path)")
        }
        guard measure else { return }
        // (one word, all) per typo mode, for the ratios to the peers.
        var typeahead: [TypoMode: (oneWord: LatencyRecorder, all: LatencyRecorder)] = [:]
        for typos in [TypoMode.auto, .off] {
            var measured = try Self.measure(shard, workload: workload, warmup: warmup, typos: typos, slowest: slowest)
            output("  suggest typos=\(typos.rawValue)")
            for (elapsed, text) in measured.slow {
                output("             slow: \(Self.micros(elapsed))  \"\(text)\"")
            }
            for line in measured.lines() { output("             " + line) }
            typeahead[typos] = (measured.oneWord, measured.all)
        }

        if updatedPercent > 0 {
            // Live updates: re-weight a share of the entries (as a catalog whose popularity changes
            // daily would), then the same workload again, beside the fresh shard's figures.
            // A copy of the fresh shard is measured again right before each later state (each pass
            // from empty query caches): a shared machine drifts by tens of percent over a run (a
            // merged shard, the same index as the fresh one, measured 0.98–1.55× it when compared
            // with the figures from minutes before).
            let freshCopy = shardDirectory + "-fresh"
            try? FileManager.default.removeItem(atPath: freshCopy)
            try FileManager.default.copyItem(atPath: shardDirectory, toPath: freshCopy)
            let freshTwin = try Shard(directory: freshCopy, readOnly: true)
            _ = try freshTwin.prefault()
            var rng = SplitMix64(seed: 11)
            let chosen = loaded.entries.indices.filter { _ in Int.random(in: 0..<100, using: &rng) < updatedPercent }
            let updateStart = monotonicNanoseconds()
            var batch: [CatalogEntry] = []
            for index in chosen {
                var entry = loaded.entries[index]
                entry.weight = UInt64.random(in: 1...1_000_000, using: &rng)
                batch.append(entry)
                if batch.count == 1000 {
                    _ = try shard.upsert(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { _ = try shard.upsert(batch) }
            output(String(format: "  updated    %d entries (%d%%) re-weighted with upserts in %.2f s", chosen.count, updatedPercent,
                          Self.seconds(monotonicNanoseconds() - updateStart)))
            // Then the delta folded into the base (what a node's background merge does once the
            // delta passes its policy), and the workload once more.
            for merged in mergeAfterUpdates ? [false, true] : [false] {
                if merged {
                    let mergeStart = monotonicNanoseconds()
                    let info = try shard.merge()
                    output(String(format: "  merged     %d delta documents and %d deleted base documents into revision %d in %.2f s",
                                  info?.delta.documents ?? 0, info?.delta.deletedBase ?? 0, info?.revision ?? 0,
                                  Self.seconds(monotonicNanoseconds() - mergeStart)))
                }
                let state = merged ? "merged" : "updated"
                for typos in [TypoMode.auto, .off] {
                    var before = try Self.measure(freshTwin, workload: workload, warmup: warmup, typos: typos, slowest: 0)
                    var measured = try Self.measure(shard, workload: workload, warmup: warmup, typos: typos, slowest: slowest)
                    output("  suggest typos=\(typos.rawValue), after the upserts\(merged ? " and the merge" : "")")
                    for (elapsed, text) in measured.slow { output("             slow: \(Self.micros(elapsed))  \"\(text)\"") }
                    for line in measured.lines() { output("             " + line) }
                    output(String(format: "  ratio      %@ / fresh (its copy, measured just before), typos=%@: all p50 %.2f×, p99 %.2f×, mean %.2f×; one word p50 %.2f×; multi-word p50 %.2f×",
                                  state, typos.rawValue, Self.ratio(&measured.all, &before.all, 0.5), Self.ratio(&measured.all, &before.all, 0.99),
                                  Double(Self.mean(measured.all)) / Double(max(1, Self.mean(before.all))),
                                  Self.ratio(&measured.oneWord, &before.oneWord, 0.5), Self.ratio(&measured.multiWord, &before.multiWord, 0.5)))
                }
            }
        }

        guard compareWithSQLite else { return }
        for ordering in [SQLitePeer.Ordering.byWeight, .rankedRowids] {
            let sqliteStart = monotonicNanoseconds()
            let file = directory + "/fts5-\(ordering == .byWeight ? "weight" : "ranked").sqlite"
            let peer = try SQLitePeer(entries: entries, path: file, ordering: ordering)
            output(String(format: "  sqlite     FTS5, %@: build %.2f s", ordering.rawValue, Self.seconds(monotonicNanoseconds() - sqliteStart)))
            for query in warmup.queries { _ = peer.suggest(query.text) }
            var oneWord = LatencyRecorder(), multiWord = LatencyRecorder(), all = LatencyRecorder()
            for query in workload.queries {
                let t0 = monotonicNanoseconds()
                _ = peer.suggest(query.text)
                let elapsed = monotonicNanoseconds() - t0
                all.record(elapsed)
                if query.words <= 1 { oneWord.record(elapsed) } else { multiWord.record(elapsed) }
            }
            output("             " + Self.line("fts5 one word", &oneWord))
            output("             " + Self.line("fts5 multi-word", &multiWord))
            output("             " + Self.line("fts5 all", &all))
            // FTS5 has no typos: typos=off is the same semantics, typos=auto is ours doing more.
            for typos in [TypoMode.off, .auto] {
                guard var ours = typeahead[typos] else { continue }
                output(String(format: "  ratio      FTS5 (%@) / typeahead typos=%@: p50 one word %.1f×, all %.1f×; p99 one word %.1f×, all %.1f×",
                              ordering.rawValue, typos.rawValue,
                              Self.ratio(&oneWord, &ours.oneWord, 0.5), Self.ratio(&all, &ours.all, 0.5),
                              Self.ratio(&oneWord, &ours.oneWord, 0.99), Self.ratio(&all, &ours.all, 0.99)))
            }
        }
    }

    /// One typo mode's latencies over a workload, by keystroke class.
    struct KeystrokeLatencies {
        var oneWord = LatencyRecorder(), multiWord = LatencyRecorder(), withTypo = LatencyRecorder(), all = LatencyRecorder()
        /// The slowest keystrokes, slowest first.
        var slow: [(UInt64, String)] = []

        mutating func lines() -> [String] {
            [Benchmark.line("one word", &oneWord), Benchmark.line("multi-word", &multiWord),
             Benchmark.line("typo'd keystrokes", &withTypo), Benchmark.line("all", &all)]
        }
    }

    /// Warms up on `warmup`, then answers every keystroke of `workload` (the bytes a node sends).
    static func measure(_ shard: Shard, workload: KeystrokeWorkload, warmup: KeystrokeWorkload, typos: TypoMode,
                        slowest: Int) throws -> KeystrokeLatencies {
        // Pages written since the shard opened (live updates) mapped too, as a node's would be
        // after its first queries on them.
        try shard.prefault()
        // Every pass starts from empty query caches (then the warm-up), whatever was measured on
        // the shard before: passes compared with each other differ only in what they measure.
        shard.dropQueryCaches()
        for query in warmup.queries { _ = try responseBytes(shard, SuggestRequest(text: query.text, typos: typos)) }
        var latencies = KeystrokeLatencies()
        var slow: [(UInt64, String)] = []
        for query in workload.queries {
            let request = SuggestRequest(text: query.text, typos: typos)
            let t0 = monotonicNanoseconds()
            _ = try responseBytes(shard, request)
            let elapsed = monotonicNanoseconds() - t0
            if slowest > 0 {
                slow.append((elapsed, query.text))
                if slow.count > slowest * 4 { slow.sort { $0.0 > $1.0 }; slow.removeLast(slow.count - slowest) }
            }
            latencies.all.record(elapsed)
            if query.hasTypo { latencies.withTypo.record(elapsed) }
            if query.words <= 1 { latencies.oneWord.record(elapsed) } else { latencies.multiWord.record(elapsed) }
        }
        latencies.slow = Array(slow.sorted { $0.0 > $1.0 }.prefix(slowest))
        return latencies
    }

    /// What a node sends for `request` (its protobuf answer, written from the memory map): what
    /// the latency figures include, as the targets ask.
    public static func responseBytes(_ shard: Shard, _ request: SuggestRequest) throws -> Int {
        try shard.suggest(request) { try $0.protobufOpening().count }
    }

    /// Peer latency over ours at one percentile: how many times faster we are.
    private static func ratio(_ peer: inout LatencyRecorder, _ ours: inout LatencyRecorder, _ p: Double) -> Double {
        Double(peer.percentile(p)) / Double(max(1, ours.percentile(p)))
    }

    /// The mean is what bounds a server's throughput: one core answers 1 s / mean per second.
    static func mean(_ recorder: LatencyRecorder) -> UInt64 {
        recorder.count > 0 ? recorder.samples.reduce(0, +) / UInt64(recorder.count) : 0
    }

    static func line(_ label: String, _ recorder: inout LatencyRecorder) -> String {
        guard recorder.count > 0 else { return "\(label): no samples" }
        let mean = Self.mean(recorder)
        return String(format: "%@: p50 %@  p99 %@  p99.9 %@  max %@  mean %@  (n=%d)", label.padding(toLength: 18, withPad: " ", startingAt: 0),
                      micros(recorder.percentile(0.5)), micros(recorder.percentile(0.99)), micros(recorder.percentile(0.999)),
                      micros(recorder.percentile(1.0)), micros(mean), recorder.count)
    }

    public static func micros(_ nanoseconds: UInt64) -> String { formatLatency(nanoseconds: nanoseconds) }

    static func seconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
}
