import Benchmarks
import Foundation
import Index
import Load
import Wire
import WireConversions

/// Options shared by suggest and search.
enum QueryOptions {
    static func tokens(_ args: Arguments) throws -> [SearchToken] {
        try args.all("--token").map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let kind = SearchToken.Kind(rawValue: parts[0]), !parts[1].isEmpty else {
                throw UsageError(description: "typeahead \(args.command): --token must look like category=NAME or ATTRIBUTE=VALUE, got \"\(text)\"")
            }
            return SearchToken(kind: kind, value: parts[1])
        }
    }

    static func text(_ args: Arguments) -> String {
        args.positionals.joined(separator: " ")
    }
}

enum SuggestCommand {
    static let help = """
    usage: typeahead suggest --dir DIR [--json] [--typos auto|off] [--token category=NAME]...
                             [--limit N] [--categories N] [--completions N] [--no-dedupe] TEXT
           typeahead suggest --dir DIR --interactive [...]

    What a search field shows while the person types TEXT. If TEXT ends in a letter or digit its
    last word is still being typed (matched as a prefix); end it with a space to complete it.

    Options:
      --dir DIR               the shard directory
      --json                  print the response as JSON (the API's JSON mapping)
      --typos auto|off        allow edits in words of 4+ characters (default auto)
      --token category=NAME   keep only entries of this category (repeatable); ATTRIBUTE=VALUE
                              for an attribute the generation declares filterable (color=red)
      --limit N               entries to return, 0–100 (default 10)
      --categories N          category suggestions, 0–100 (default 3)
      --completions N         query completions, 0–100 (default 5)
      --no-dedupe             keep entries displayed identically (same title and categories)
      --interactive           read one field text per line from standard input
      --timing                with --interactive: print each answer's time to standard error (the
                              protobuf answer a node sends, timed once, as typed: each line after
                              the one before, so the walk caches of a typing session apply)
      --timing-only           like --timing, and print no answers: what a profiler should see
      --repeat N              answer N times (the protobuf answer a node sends, as `typeahead
                              bench` times it) and print latency percentiles to standard error
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "suggest", flags: ["--json", "--no-dedupe", "--interactive", "--timing", "--timing-only"],
                                 options: ["--dir", "--typos", "--token", "--limit", "--categories", "--completions", "--repeat"])
        if args.wantsHelp { print(help); return 0 }
        let shard = try Shard(directory: try args.required("--dir"), readOnly: true)
        var request = SuggestRequest(text: QueryOptions.text(args))
        let repeats = try args.integer("--repeat", default: 0, range: 0...10_000_000)
        request.tokens = try QueryOptions.tokens(args)
        request.typos = try args.choice("--typos", default: TypoMode.auto)
        request.dedupe = !args.flag("--no-dedupe")
        request.limits = SuggestLimits(entries: try args.integer("--limit", default: 10, range: 0...100),
                                       categories: try args.integer("--categories", default: 3, range: 0...100),
                                       completions: try args.integer("--completions", default: 5, range: 0...100))
        if args.flag("--interactive") {
            let timingOnly = args.flag("--timing-only"), timing = timingOnly || args.flag("--timing")
            while let line = readLine(strippingNewline: true) {
                request.text = line
                if timing {
                    let start = monotonicNanoseconds()
                    _ = try Benchmark.responseBytes(shard, request)
                    printError("\(Benchmark.micros(monotonicNanoseconds() - start))  \"\(line)\"")
                    if timingOnly { continue }
                }
                // Written straight to the descriptor so a pipe sees each answer as it comes.
                FileHandle.standardOutput.write(Data(render(try shard.suggest(request), request: request, json: args.flag("--json")).utf8))
            }
            return 0
        }
        if repeats > 0 {
            var latencies = LatencyRecorder()
            for _ in 0..<repeats {
                let start = monotonicNanoseconds()
                // What a node sends, as `typeahead bench` times it: the protobuf answer written
                // from the memory map.
                _ = try Benchmark.responseBytes(shard, request)
                latencies.record(monotonicNanoseconds() - start)
            }
            printError("\(repeats) runs: p50 \(Benchmark.micros(latencies.percentile(0.5))), p99 \(Benchmark.micros(latencies.percentile(0.99))), max \(Benchmark.micros(latencies.percentile(1)))")
        }
        print(render(try shard.suggest(request), request: request, json: args.flag("--json")), terminator: "")
        return 0
    }

    static func render(_ response: SuggestResponse, request: SuggestRequest, json: Bool) -> String {
        render(Typeahead_V1_SuggestResponse(response), text: request.text, json: json)
    }

    /// A suggest answer for people (or as JSON): from a local shard or from a cluster.
    static func render(_ response: Typeahead_V1_SuggestResponse, text: String, json: Bool) -> String {
        if json { return String(decoding: ResponseJSON.suggest(response), as: UTF8.self) }
        var out = ""
        func print(_ line: String) { out += line + "\n" }
        print("\"\(text)\"")
        if let shards = response.shards, shards.failed > 0 {
            print("  (partial: \(shards.succeeded) of \(shards.total) shards answered; missing \(shards.failedShards.joined(separator: ", ")))")
        }
        if response.entries.isEmpty && response.completions.isEmpty && response.categories.isEmpty {
            print("  (no suggestions)")
        }
        if !response.completions.isEmpty {
            print("  complete the text:")
            for completion in response.completions { print("    → \(completion.text)") }
        }
        if !response.categories.isEmpty {
            print("  filter by:")
            for category in response.categories {
                print("    [\(category.name)] \(category.count) entries  (field becomes \"\(category.replacementText)\")")
            }
        }
        if !response.entries.isEmpty {
            print("  entries:")
            for (i, hit) in response.entries.enumerated() {
                print("    \(column(String(i + 1) + ".", 4))\(column(highlighted(hit), 44)) \(column(hit.categories.joined(separator: ", "), 18)) weight \(hit.weight)")
            }
        }
        return out
    }

    /// The title with matched words in [brackets].
    static func highlighted(_ hit: Typeahead_V1_EntryHit) -> String {
        var result = ""
        let units = Array(hit.title.utf16)
        var position = 0
        for range in hit.highlights where Int(range.start) >= position && Int(range.end) <= units.count && range.start < range.end {
            result += String(decoding: units[position..<Int(range.start)], as: UTF16.self)
            result += "[" + String(decoding: units[Int(range.start)..<Int(range.end)], as: UTF16.self) + "]"
            position = Int(range.end)
        }
        result += String(decoding: units[position...], as: UTF16.self)
        return result
    }
}

enum SearchCommand {
    static let help = """
    usage: typeahead search --dir DIR [--json] [--typos auto|off] [--token category=NAME]...
                            [--page-size N] [--page-token T] [--sort relevance|weight] [--no-facets] TEXT

    The full search a field runs on submit: every word must match the title, an alias or the
    description (the last word as a prefix unless TEXT ends in a space). Pages continue from the
    previous response's next page token.

    Options:
      --dir DIR                  the shard directory
      --json                     print the response as JSON (the API's JSON mapping)
      --typos auto|off           allow edits in words of 4+ characters (default auto)
      --token category=NAME      keep only entries of this category (repeatable); ATTRIBUTE=VALUE
                                 for an attribute the generation declares filterable (color=red)
      --page-size N              hits per page, 1–100 (default 20)
      --page-token T             continue after the page that returned T
      --sort relevance|weight    order of hits (default relevance)
      --no-facets                leave out category counts
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "search", flags: ["--json", "--no-facets"],
                                 options: ["--dir", "--typos", "--token", "--page-size", "--page-token", "--sort"])
        if args.wantsHelp { print(help); return 0 }
        let shard = try Shard(directory: try args.required("--dir"), readOnly: true)
        var request = SearchRequest(text: QueryOptions.text(args))
        request.tokens = try QueryOptions.tokens(args)
        request.typos = try args.choice("--typos", default: TypoMode.auto)
        request.pageSize = try args.integer("--page-size", default: 20, range: 1...100)
        request.pageToken = args.value("--page-token")
        request.sort = try args.choice("--sort", default: SearchRequest.Sort.relevance)
        request.facets = !args.flag("--no-facets")
        let response = try shard.search(request)
        if args.flag("--json") {
            print(String(decoding: ResponseJSON.search(response), as: UTF8.self), terminator: "")
            return 0
        }
        print("\(response.totalHits) hits for \"\(request.text)\"")
        for (i, hit) in response.hits.enumerated() {
            print("  \(column(String(i + 1) + ".", 4))\(column(SuggestCommand.highlighted(Typeahead_V1_EntryHit(hit)), 44)) \(column(hit.categories.joined(separator: ", "), 18)) weight \(hit.weight)")
        }
        if !response.facets.isEmpty {
            print("  categories: " + response.facets.prefix(10).map { "\($0.name) (\($0.count))" }.joined(separator: ", "))
        }
        if let token = response.nextPageToken { print("  next page: --page-token \(token)") }
        return 0
    }
}
