import Benchmarks
import Foundation

enum BenchCommand {
    static let help = """
    usage: typeahead bench [--catalog NAME=FILE]... [--synthetic N] [--sessions N] [--no-sqlite] [--work-dir DIR]
                           [--slowest N] [--keystrokes-out DIR] [--build-only] [--quality] [--updated PERCENT]
                           [--no-merge]

    Builds an index per catalog and replays a keystroke workload (every prefix of titles sampled by
    popularity, 20% with a typo), printing build rate, index size, open time and suggest latency
    percentiles, then the same workload on SQLite FTS5 and the ratio. Use a release build.

    Options:
      --catalog NAME=FILE   a JSON Lines catalog to measure (repeatable)
      --synthetic N         also measure a generated catalog of N entries
      --sessions N          typed titles in the workload (default 2000)
      --no-sqlite           skip the SQLite FTS5 peer
      --work-dir DIR        where indexes are built (default: a temporary directory)
      --slowest N           also list the N slowest keystrokes of each typo mode
      --keystrokes-out DIR  write each workload to DIR/NAME.keystrokes (one field text a line)
      --build-only          build the indexes (into --work-dir DIR/NAME/shard) and write the
                            workloads, measure nothing: for scripts that serve the shard
      --quality             measure ranking quality instead of latency: --sessions simulated
                            people type an entry (one in ten with a typo); how often it is in the
                            top 10 at the end, and how many keystrokes until it is in the top 5
      --updated PERCENT     then re-weight PERCENT of the entries with upserts (live updates) and
                            measure the same workload again, then once more after folding the
                            delta into the base (a merge, as a node does in the background), with
                            the ratios to a copy of the fresh shard (DIR/NAME/shard-fresh)
                            measured right before each, so that the machine's drift cancels
      --no-merge            with --updated: measure no merge, and leave the updated shard (its
                            delta unmerged) in --work-dir DIR/NAME/shard, for profiling
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "bench", flags: ["--no-sqlite", "--build-only", "--quality", "--no-merge"],
                                 options: ["--catalog", "--synthetic", "--sessions", "--work-dir", "--slowest", "--keystrokes-out", "--updated"])
        if args.wantsHelp { print(help); return 0 }
        var datasets: [Benchmark.Dataset] = try args.all("--catalog").map { spec in
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw UsageError(description: "typeahead bench: --catalog must look like NAME=FILE, got \"\(spec)\"")
            }
            return Benchmark.Dataset(name: parts[0], path: parts[1])
        }
        let synthetic = try args.integer("--synthetic", default: 0, range: 0...100_000_000)
        if synthetic > 0 { datasets.append(.init(name: "synthetic-\(synthetic)", path: nil, synthetic: synthetic)) }
        guard !datasets.isEmpty else {
            throw UsageError(description: "typeahead bench: give at least one --catalog NAME=FILE or --synthetic N")
        }
        let work = args.value("--work-dir") ?? NSTemporaryDirectory() + "typeahead-bench-\(getpid())"
        var benchmark = Benchmark(datasets: datasets, workDirectory: work)
        benchmark.sessions = try args.integer("--sessions", default: 2000, range: 1...10_000_000)
        benchmark.compareWithSQLite = !args.flag("--no-sqlite")
        benchmark.slowest = try args.integer("--slowest", default: 0, range: 0...1000)
        benchmark.keystrokesDirectory = args.value("--keystrokes-out")
        benchmark.measure = !args.flag("--build-only")
        benchmark.quality = args.flag("--quality")
        benchmark.updatedPercent = try args.integer("--updated", default: 0, range: 0...100)
        benchmark.mergeAfterUpdates = !args.flag("--no-merge")
        if !benchmark.measure && args.value("--work-dir") == nil {
            throw UsageError(description: "typeahead bench: --build-only needs --work-dir DIR (where the shards stay)")
        }
        try benchmark.run()
        if args.value("--work-dir") == nil { try? FileManager.default.removeItem(atPath: work) }
        return 0
    }
}
