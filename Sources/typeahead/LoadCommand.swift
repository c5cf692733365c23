import Catalog
import Dispatch
import Foundation
import Load

enum LoadCommand {
    static let help = """
    usage: typeahead load --target HOST:PORT (--catalog FILE | --queries FILE)
                          [--rate R | --request-rate R | --max] [--duration S] [--connections C] [--report DIR]
                          [more options below]

    Replays people typing into a search field against a node or a coordinator: each simulated
    person types a text one character at a time (pauses between keys, typos fixed with a
    backspace, hesitations), every keystroke a typeahead.v1.Typeahead/Suggest with the session's id
    and a rising revision, and on submit a Search. Keystrokes leave on the person's schedule, not
    when the previous answer arrives, so a coordinator may cancel superseded ones (CANCELLED
    "superseded …" is counted as superseded, not as an error).

    Open loop (default): sessions start at --rate per second (Poisson arrivals, or --arrivals
    uniform), and each request's latency counts from the moment it was meant to be sent, so a
    server that falls behind shows as latency (no coordinated omission). Closed loop (--max):
    --connections × --streams people each send the next keystroke as soon as the previous answer
    is in, without pauses: the maximum throughput.

    Prints a summary (rates, statuses, latency percentiles per kind and per prefix length, shard
    status); --report DIR also writes report.json, latency.svg and summary.txt. Ctrl-C ends the
    run early and still reports (twice: stop at once). Exit status: 0 when the run finished, 1 when
    the target cannot be reached or answered nothing, 2 for a usage error.

    Target and texts:
      --target HOST:PORT     the node or coordinator to load
      --catalog FILE         type catalog titles (JSON Lines), picked by weight
      --queries FILE         type the queries of a log, one final query text per line
      --token-file F         send this bearer token (servers started with --read-token-file)
      --tls-ca F             reach the target over HTTPS, trusting the CA certificates of F
      --tls-cert F, --tls-key F  with --tls-ca: present this client certificate (mutual TLS)

    Load:
      --rate R               sessions started per second (default 10)
      --request-rate R       instead: aim at R requests per second (converted with the typing
                             model's mean requests per session)
      --arrivals A           poisson (default) or uniform session starts
      --max                  closed loop: as fast as answers come back
      --streams N            with --max: concurrent people per connection (default 8)
      --duration S           seconds of measured load (default 10; decimals allowed)
      --warmup S             seconds of load before measuring (default 0)
      --graceful-stop S      open loop: seconds sessions may keep typing after the duration
                             (default 10); those still typing then are cut
      --connections C        HTTP/2 connections (default 4)
      --threads T            client event-loop threads (default: min(C, cores))
      --timeout-ms T         per-request deadline, sent as grpc-timeout (default 2000)

    Typing:
      --key-delay-ms A-B     pause before each key, uniform in A..B ms (default 80-250; or one value)
      --typo-rate P          chance per character of a wrong key, fixed with a backspace (default 0.03)
      --backspace-rate P     chance per character of deleting and retyping it (default 0.02)
      --submit-rate P        chance that a session ends with a Search (default 0.5)
      --max-length N         characters typed at most (longer texts are cut; default 40)
      --seed N               seed for texts, typing and arrivals (default: random, printed)

    Output:
      --report DIR           write report.json, latency.svg and summary.txt into DIR
      --json                 print report.json to standard output (the summary goes to standard error)
      --quiet                no progress line every second
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "load", flags: ["--max", "--json", "--quiet"],
                                 options: ["--target", "--catalog", "--queries", "--token-file", "--rate", "--request-rate", "--arrivals",
                                           "--streams", "--duration", "--warmup", "--graceful-stop", "--connections", "--threads",
                                           "--timeout-ms", "--key-delay-ms", "--typo-rate", "--backspace-rate", "--submit-rate",
                                           "--max-length", "--seed", "--report", "--tls-ca", "--tls-cert", "--tls-key"])
        if args.wantsHelp { print(help); return 0 }
        guard args.positionals.isEmpty else {
            throw UsageError(description: "typeahead load: unexpected argument \"\(args.positionals[0])\"")
        }
        var configuration = try configuration(from: args)
        // Files last: a usage error should not wait for a large catalog to load.
        let source: TextSource
        do {
            switch (args.value("--catalog"), args.value("--queries")) {
            case (let catalog?, nil): source = try TextSource.catalog(path: catalog)
            case (nil, let queries?): source = try TextSource.queries(path: queries)
            case (nil, nil): throw UsageError(description: "typeahead load: give --catalog FILE or --queries FILE (see typeahead load --help)")
            default: throw UsageError(description: "typeahead load: --catalog and --queries exclude each other")
            }
        } catch let error as LoadError {
            throw UsageError(description: "typeahead load: \(error)", status: 1)
        }
        configuration.bearerToken = try Tokens.read(file: args.value("--token-file"), environment: nil, command: "load")

        let quiet = args.flag("--quiet"), json = args.flag("--json")
        let generator = LoadGenerator(configuration: configuration, source: source)
        let signals = stopOnSignals(generator)
        let report: LoadReport
        do {
            report = try Blocking.run {
                try await generator.run { event in
                    switch event {
                    case .progress(let progress): if !quiet { printError(line(progress)) }
                    case .warning(let warning): printError("typeahead load: warning: \(warning)")
                    }
                }
            }
        } catch let error as LoadError {
            throw UsageError(description: "typeahead load: \(error)", status: error.kind == .invalidConfiguration ? 2 : 1)
        }
        withExtendedLifetime(signals) {}

        if json {
            FileHandle.standardOutput.write(Data(report.json().utf8))
            printError(report.summary())
        } else {
            FileHandle.standardOutput.write(Data(report.summary().utf8))
        }
        if let directory = args.value("--report") {
            do {
                let paths = try report.write(to: directory)
                printError("typeahead load: wrote " + paths.joined(separator: ", "))
            } catch {
                throw UsageError(description: "typeahead load: \(error)", status: 1)
            }
        }
        if report.requests.sent > 0 && report.requests.answered == 0 {
            printError("typeahead load: no request was answered (see the statuses above)")
            return 1
        }
        return 0
    }

    /// The options as a configuration, validated (every problem is a one-line usage error).
    static func configuration(from args: Arguments) throws -> LoadConfiguration {
        // An empty host (":7700") is this machine, as for --listen.
        let (host, port) = try ListenAddress.parse(try args.required("--target"), command: "load", option: "--target")
        let closed = args.flag("--max")
        let rate = try args.decimal("--rate"), requestRate = try args.decimal("--request-rate")
        if closed {
            for name in ["--rate", "--request-rate", "--arrivals", "--graceful-stop"] where args.value(name) != nil {
                throw UsageError(description: "typeahead load: \(name) is for the open loop; --max sends as fast as answers come back")
            }
        } else if args.value("--streams") != nil {
            throw UsageError(description: "typeahead load: --streams applies to --max only")
        }
        if rate != nil && requestRate != nil {
            throw UsageError(description: "typeahead load: give --rate (sessions/s) or --request-rate (requests/s), not both")
        }
        let mode: LoadConfiguration.Mode
        if closed {
            mode = .closedLoop(streamsPerConnection: try args.whole("--streams") ?? 8)
        } else {
            let arrivals = try args.choice("--arrivals", default: ArrivalProcess.Kind.poisson)
            mode = .openLoop(requestRate.map { .requests($0) } ?? .sessions(rate ?? 10), arrivals)
        }
        var configuration = LoadConfiguration(host: host, port: port, mode: mode)
        if let files = try TLSFiles.clientFiles(args, command: "load") {
            configuration.tls = .init(certificateAuthorities: files.authorities, certificateChain: files.certificate, privateKey: files.key)
        }
        configuration.duration = try args.seconds("--duration") ?? configuration.duration
        configuration.warmup = try args.seconds("--warmup") ?? configuration.warmup
        configuration.gracefulStop = try args.seconds("--graceful-stop") ?? configuration.gracefulStop
        configuration.connections = try args.whole("--connections") ?? 4
        configuration.threads = try args.whole("--threads")
            ?? max(1, min(configuration.connections, ProcessInfo.processInfo.activeProcessorCount))
        if let timeout = try args.decimal("--timeout-ms") { configuration.requestTimeout = .milliseconds(timeout) }
        if let delays = args.value("--key-delay-ms") { configuration.typing.keyDelay = try keyDelay(delays) }
        configuration.typing.typoRate = try args.decimal("--typo-rate") ?? configuration.typing.typoRate
        configuration.typing.backspaceRate = try args.decimal("--backspace-rate") ?? configuration.typing.backspaceRate
        configuration.typing.submitRate = try args.decimal("--submit-rate") ?? configuration.typing.submitRate
        configuration.typing.maximumLength = try args.whole("--max-length") ?? configuration.typing.maximumLength
        if let seed = args.value("--seed") {
            guard let value = UInt64(seed) else {
                throw UsageError(description: "typeahead load: --seed must be a whole number from 0 to \(UInt64.max), got \"\(seed)\"")
            }
            configuration.seed = value
        } else {
            // Random but printed (and below 2^53, so report.json keeps it exact).
            configuration.seed = UInt64.random(in: 1...UInt64(UInt32.max))
        }
        do {
            try configuration.validate()
        } catch {
            throw UsageError(description: "typeahead load: \(error)")
        }
        return configuration
    }

    /// "80-250" or "120" (milliseconds).
    static func keyDelay(_ text: String) throws -> ClosedRange<Duration> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 }) else {
            throw UsageError(description: "typeahead load: --key-delay-ms must look like 80-250 or 120 (milliseconds), got \"\(text)\"")
        }
        let low = parts[0]!, high = parts.last!!
        guard low <= high else {
            throw UsageError(description: "typeahead load: --key-delay-ms range is backwards: \(text) (write LOW-HIGH)")
        }
        return Duration.milliseconds(low) ... Duration.milliseconds(high)
    }

    /// The progress line, once a second on standard error.
    static func line(_ progress: LoadProgress) -> String {
        let seconds = Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) / 1e18
        return String(format: "typeahead load: %5.1f s  sessions %d  sent %d  ok %d  superseded %d  failed %d  in flight %d",
                      seconds, progress.sessionsStarted, progress.sent, progress.answered, progress.superseded, progress.failed,
                      progress.inFlight) + (progress.reconnects > 0 ? "  reconnects \(progress.reconnects)" : "")
    }

    /// Ctrl-C or SIGTERM: the first ends the measured window, the second stops at once.
    static func stopOnSignals(_ generator: LoadGenerator) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                printError("typeahead load: stopping (again to stop at once)")
                generator.stop()
            }
            source.resume()
            return source
        }
    }
}

extension Arguments {
    /// A whole-number option, or nil when absent; ranges are the configuration's to check.
    func whole(_ name: String) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else {
            throw UsageError(description: "typeahead \(command): \(name) must be a whole number, got \"\(text)\"")
        }
        return number
    }

    /// A decimal option, or nil when absent; ranges are the configuration's to check.
    func decimal(_ name: String) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), number.isFinite else {
            throw UsageError(description: "typeahead \(command): \(name) must be a number, got \"\(text)\"")
        }
        return number
    }

    /// A decimal number of seconds, or nil when absent.
    func seconds(_ name: String) throws -> Duration? {
        try decimal(name).map { .milliseconds($0 * 1000) }
    }
}
