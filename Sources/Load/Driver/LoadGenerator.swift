import Catalog
import Dispatch
import Foundation
import HTTP2
import RPC
import Synchronization
import Wire

/// `typeahead load`: replays people typing into search fields against a Typeahead server (a node
/// or a coordinator) over many HTTP/2 connections, and measures what they would have waited.
///
/// ```swift
/// let source = try TextSource.catalog(path: "deploy/catalog/sample.jsonl")
/// var configuration = LoadConfiguration(host: "127.0.0.1", port: 7790, mode: .openLoop(.sessions(50), .poisson))
/// configuration.duration = .seconds(20)
/// let generator = LoadGenerator(configuration: configuration, source: source)
/// let report = try await generator.run { event in if case .progress(let p) = event { print(p.sent) } }
/// print(report.summary())
/// try report.write(to: "/tmp/load-report")
/// ```
///
/// A run: connect every connection (failing fast with a ``LoadError`` when the target is
/// unreachable), check one Suggest (``LoadConfiguration/preflight``), then either
/// - **open loop**: an ``OpenLoopScheduler`` thread starts sessions at the arrival rate and sends
///   each keystroke on its person's schedule; or
/// - **closed loop**: every connection runs its streams on its own loop, each sending the next
///   keystroke as the previous answer arrives;
/// then waits for the last answer, gathers each loop's ``LoadStatistics`` and builds the
/// ``LoadReport``.
///
/// Threads: the client's event loops do all network work and own all per-request state (see
/// ``Lane``); the open loop adds one scheduler thread; the caller's task only waits, polls the
/// counters for progress, and merges at the end. Nothing blocks a loop thread.
public final class LoadGenerator: Sendable {
    /// What ``run(events:)`` reports while it runs (on a background thread).
    public enum Event: Sendable {
        /// Once a second.
        case progress(LoadProgress)
        /// Something the person running the test should know, that does not stop the run.
        case warning(String)
    }

    public let configuration: LoadConfiguration
    public let source: TextSource
    private let clock = Mutex<RunClock?>(nil)
    private let stopsBeforeStart = Atomic<Int>(0)

    public init(configuration: LoadConfiguration, source: TextSource) {
        self.configuration = configuration
        self.source = source
    }

    /// Ends the run early, from any thread (a signal handler's queue): the first call closes the
    /// measured window now (sessions already typing get the graceful stop), the second stops
    /// sending at once. The report covers what was measured.
    public func stop() {
        if let clock = clock.withLock({ $0 }) {
            clock.stop()
        } else {
            stopsBeforeStart.add(1, ordering: .relaxed)
        }
    }

    /// Runs the whole test and returns its report. Throws ``LoadError`` for an invalid
    /// configuration, an unreachable target, or one that refuses the calls outright; failures of
    /// individual requests are counted in the report, never thrown.
    public func run(events: (@Sendable (Event) -> Void)? = nil) async throws(LoadError) -> LoadReport {
        try configuration.validate()
        let configuration = self.configuration
        let events = events ?? { _ in }
        var sessionRate: Double?
        if case .openLoop(let rate, _) = configuration.mode {
            switch rate {
            case .sessions(let perSecond): sessionRate = perSecond
            case .requests(let perSecond): sessionRate = perSecond / configuration.typing.expectedRequestsPerSession(source, seed: configuration.seed)
            }
        }

        var clientConfiguration = HTTP2Client.Configuration()
        clientConfiguration.threadCount = configuration.threads
        // Answers are small, but a search page with facets can be large; the server's own limit.
        clientConfiguration.session.maxBodySize = 16 << 20
        if let tls = configuration.tls {
            do {
                clientConfiguration.tls = try HTTP2ClientTLS(certificateAuthorities: tls.certificateAuthorities,
                                                             certificateChain: tls.certificateChain, privateKey: tls.privateKey)
            } catch {
                throw LoadError(.target, "cannot use the TLS files: \(error)")
            }
        }
        let client: HTTP2Client
        do {
            client = try HTTP2Client(configuration: clientConfiguration)
        } catch {
            throw LoadError(.target, "cannot start the client's event loops: \(error)")
        }
        let connections: [HTTP2ClientConnection]
        do {
            connections = try await connect(client)
            if configuration.preflight { try await preflight(connections[0], events: events) }
        } catch {
            client.shutdown()
            throw error
        }

        // Run ids keep sessions of different runs apart (a coordinator remembers finished
        // revisions per session id); never derived from the seed, so re-running a seed is safe.
        let runID = "ld" + String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
        // A closed loop stops sending at the end of the window: its sessions have no schedule to finish.
        let isOpen = if case .openLoop = configuration.mode { true } else { false }
        let runClock = RunClock(start: monotonicNanoseconds() + 5_000_000, warmup: configuration.warmup, duration: configuration.duration,
                                gracefulStop: isOpen ? configuration.gracefulStop : .zero)
        clock.withLock { $0 = runClock }
        for _ in 0..<stopsBeforeStart.load(ordering: .relaxed) { runClock.stop() }
        let counters = LiveCounters()
        let options = GRPCClient.Options(timeout: configuration.requestTimeout, bearerToken: configuration.bearerToken)
        let context = LaneContext(client: client, host: configuration.host, port: configuration.port, options: options,
                                  clock: runClock, counters: counters, typing: configuration.typing,
                                  source: source, seed: configuration.seed, runID: runID)
        var recorders: [Int: HTTP2LoopBound<LoopRecorder>] = [:]
        for connection in connections where recorders[connection.eventLoop.index] == nil {
            recorders[connection.eventLoop.index] = HTTP2LoopBound(sending: LoopRecorder(), eventLoop: connection.eventLoop)
        }
        let lanes = connections.enumerated().map { index, connection in
            HTTP2LoopBound(sending: Lane(index: index, connection: connection, recorder: recorders[connection.eventLoop.index]!,
                                         context: context), eventLoop: connection.eventLoop)
        }
        for lane in lanes { lane.eventLoop.execute { lane.value.watch() } }

        var scheduler: OpenLoopScheduler?
        var streams = 0
        switch configuration.mode {
        case .openLoop(_, let kind):
            let open = OpenLoopScheduler(lanes: lanes, source: source, typing: configuration.typing,
                                         arrivals: ArrivalProcess(rate: sessionRate!, kind: kind), clock: runClock,
                                         counters: counters, seed: configuration.seed, runID: runID)
            open.start()
            scheduler = open
        case .closedLoop(let perConnection):
            streams = perConnection * lanes.count
            for lane in lanes { lane.eventLoop.execute { lane.value.startClosedLoop(streams: perConnection) } }
        }

        // Wait: sending has ended and every request has an answer (or has timed out). The cap is
        // a safety net for an answer that never completes, which the lane timers should prevent.
        var lastProgress = monotonicNanoseconds()
        while true {
            try? await Task.sleep(for: .milliseconds(20))
            let now = monotonicNanoseconds()
            if now - lastProgress >= 1_000_000_000 {
                lastProgress = now
                events(.progress(counters.progress(elapsed: .nanoseconds(Int64(now - min(now, runClock.start))))))
            }
            let sendingDone = scheduler.map { $0.sessionCounts != nil } ?? (counters.finishedStreams.load(ordering: .relaxed) >= streams)
            if sendingDone && counters.inFlight.load(ordering: .relaxed) == 0 { break }
            if now > runClock.hardEnd + configuration.requestTimeout.wholeNanoseconds + 5_000_000_000 {
                events(.warning("\(counters.inFlight.load(ordering: .relaxed)) requests still unanswered at the end; left out of the report"))
                break
            }
        }
        let finished = monotonicNanoseconds()

        for lane in lanes { await Self.onLoop(lane.eventLoop, fallback: ()) { lane.value.stop() } }
        var statistics = LoadStatistics()
        for recorder in recorders.values {
            statistics.merge(await Self.onLoop(recorder.eventLoop, fallback: LoadStatistics()) { recorder.value.statistics })
        }
        if let counts = scheduler?.sessionCounts { statistics.sessions.merge(counts) }
        client.shutdown()

        let window = Double(min(runClock.windowEnd, finished) - min(runClock.measureStart, runClock.windowEnd)) / 1e9
        // The wall clock of the window's start: now, less the monotonic time since it.
        let windowStart = Date().timeIntervalSince1970 - Double(Int64(bitPattern: monotonicNanoseconds() &- runClock.measureStart)) / 1e9
        return LoadReport(configuration: configuration, source: source, sessionRate: sessionRate, statistics: statistics,
                          windowSeconds: window, elapsedSeconds: Double(finished - runClock.start) / 1e9,
                          windowStartUnixSeconds: windowStart, runID: runID,
                          connectionsLost: counters.connectionsLost.load(ordering: .relaxed),
                          reconnects: counters.reconnects.load(ordering: .relaxed))
    }

    // MARK: Steps

    /// Opens every connection at once; the first failure is the error.
    private func connect(_ client: HTTP2Client) async throws(LoadError) -> [HTTP2ClientConnection] {
        let (host, port, count) = (configuration.host, configuration.port, configuration.connections)
        do {
            return try await withThrowingTaskGroup(of: HTTP2ClientConnection.self) { group in
                for _ in 0..<count { group.addTask { try await client.connect(host: host, port: port) } }
                var connections: [HTTP2ClientConnection] = []
                for try await connection in group { connections.append(connection) }
                return connections
            }
        } catch let error as HTTP2ClientError {
            throw LoadError(.target, "cannot connect to \(host):\(port): \(error.cause.map { "\($0)" } ?? error.message)")
        } catch {
            throw LoadError(.target, "cannot connect to \(host):\(port): \(error)")
        }
    }

    /// One Suggest of an empty text (no session, not counted). Refusals that would fail every
    /// request are errors; anything else is a warning and the run goes on.
    private func preflight(_ connection: HTTP2ClientConnection, events: @Sendable (Event) -> Void) async throws(LoadError) {
        let target = "\(configuration.host):\(configuration.port)"
        let options = GRPCClient.Options(timeout: max(configuration.requestTimeout, .seconds(5)), bearerToken: configuration.bearerToken,
                                         requestID: "load-preflight")
        do {
            _ = try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(), on: connection, options: options)
        } catch {
            switch error.code {
            case .unauthenticated, .permissionDenied:
                let hint = configuration.bearerToken == nil ? "give the read token with --token-file" : "check the token in --token-file"
                throw LoadError(.target, "\(target) refused a Suggest: \(error) (\(hint))")
            case .unimplemented:
                throw LoadError(.target, "\(target) does not serve typeahead.v1.Typeahead/Suggest (\(error)); point --target at a node or a coordinator")
            case .internal, .unknown:
                throw LoadError(.target, "\(target) does not answer like a Typeahead server: \(error)")
            default:
                events(.warning("the preflight Suggest to \(target) failed (\(error)); running anyway"))
            }
        }
    }

    /// Runs `body` on `loop` and returns its value (`fallback` if the loop has shut down).
    private static func onLoop<T: Sendable>(_ loop: HTTP2EventLoop, fallback: T, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            if !loop.execute({ continuation.resume(returning: body()) }) { continuation.resume(returning: fallback) }
        }
    }
}
