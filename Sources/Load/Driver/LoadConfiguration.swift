
/// Everything a load run needs but its texts: the target, the mode (open or closed loop), the
/// timing, the connections and the typing model. ``validate()`` refuses absurd values with a
/// one-line ``LoadError``.
///
/// ```swift
/// var configuration = LoadConfiguration(host: "127.0.0.1", port: 7790, mode: .openLoop(.sessions(50), .poisson))
/// configuration.duration = .seconds(20)
/// configuration.typing.submitRate = 0.3
/// try configuration.validate()
/// ```
public struct LoadConfiguration: Sendable, Equatable {
    /// The rate an open loop aims at.
    public enum Rate: Sendable, Equatable {
        /// Sessions started per second.
        case sessions(Double)
        /// Requests per second on average; turned into sessions per second with the typing model's
        /// mean requests per session (``TypingModel/expectedRequestsPerSession(_:samples:seed:)``).
        case requests(Double)
    }

    /// How requests are paced.
    public enum Mode: Sendable, Equatable {
        /// Sessions arrive at a rate and type on their own schedule whatever the server does;
        /// latency counts from each request's intended send time (no coordinated omission).
        case openLoop(Rate, ArrivalProcess.Kind)
        /// `connections × streams` simulated people, each sending its next keystroke the moment the
        /// previous answer arrives (no pauses): the maximum throughput. Latency counts from the
        /// actual send (in a closed loop the two are the same).
        case closedLoop(streamsPerConnection: Int)
    }

    public var host: String
    public var port: Int
    public var mode: Mode
    /// Reach the target over HTTPS (ALPN h2) with these files; nil: cleartext HTTP/2.
    public var tls: TLSFiles?

    /// PEM files for a TLS client: the CA certificates to trust and, for mutual TLS, the
    /// certificate to present and its key.
    public struct TLSFiles: Sendable, Equatable {
        public var certificateAuthorities: String
        public var certificateChain: String?
        public var privateKey: String?

        public init(certificateAuthorities: String, certificateChain: String? = nil, privateKey: String? = nil) {
            self.certificateAuthorities = certificateAuthorities
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }
    /// How long sessions keep arriving (open loop) or streams keep sending (closed loop), after
    /// the warmup.
    public var duration: Duration = .seconds(10)
    /// Load before the measured window; requests intended in it are not counted.
    public var warmup: Duration = .zero
    /// Open loop: how long sessions started within the window may go on typing after it; those
    /// still typing then are cut (counted, their remaining keystrokes never sent).
    public var gracefulStop: Duration = .seconds(10)
    /// HTTP/2 connections (each a browser tab's worth of sessions, multiplexed as streams).
    public var connections = 4
    /// Event-loop threads of the client; connections are spread over them.
    public var threads = 2
    public var typing = TypingModel()
    /// Sent as `grpc-timeout` and enforced locally: an answer later than this is DEADLINE_EXCEEDED.
    public var requestTimeout: Duration = .seconds(2)
    /// `authorization: Bearer …` on every call, for servers that require a read token.
    public var bearerToken: String?
    /// Seeds the texts picked, the typing and the arrivals (timing still varies run to run).
    public var seed: UInt64 = 1
    /// One Suggest before the run to turn "wrong port", "needs a token" or "not a Typeahead
    /// server" into a clear error instead of a report full of failures. Not counted.
    public var preflight = true

    public init(host: String, port: Int, mode: Mode) {
        self.host = host
        self.port = port
        self.mode = mode
    }

    /// Refuses absurd values, naming the option as the command line spells it.
    public func validate() throws(LoadError) {
        func fail(_ message: String) -> LoadError { LoadError(.invalidConfiguration, message) }
        guard !host.isEmpty else { throw fail("--target needs a host (HOST:PORT)") }
        guard (1...65535).contains(port) else { throw fail("--target port must be 1...65535, got \(port)") }
        switch mode {
        case .openLoop(.sessions(let rate), _):
            guard rate.isFinite, rate > 0, rate <= 1_000_000 else { throw fail("--rate must be above 0 and at most 1000000 sessions/s, got \(rate)") }
        case .openLoop(.requests(let rate), _):
            guard rate.isFinite, rate > 0, rate <= 10_000_000 else { throw fail("--request-rate must be above 0 and at most 10000000 requests/s, got \(rate)") }
        case .closedLoop(let streams):
            guard (1...1000).contains(streams) else { throw fail("--streams must be 1...1000, got \(streams)") }
            guard streams * connections <= 100_000 else { throw fail("--connections × --streams must be at most 100000, got \(streams * connections)") }
        }
        guard duration > .zero, duration <= .seconds(86_400) else { throw fail("--duration must be above 0 and at most 86400 s, got \(duration)") }
        guard warmup >= .zero, warmup <= .seconds(86_400) else { throw fail("--warmup must be 0...86400 s, got \(warmup)") }
        guard gracefulStop >= .zero, gracefulStop <= .seconds(3600) else { throw fail("--graceful-stop must be 0...3600 s, got \(gracefulStop)") }
        guard (1...10_000).contains(connections) else { throw fail("--connections must be 1...10000, got \(connections)") }
        guard (1...256).contains(threads) else { throw fail("--threads must be 1...256, got \(threads)") }
        guard requestTimeout >= .milliseconds(1), requestTimeout <= .seconds(600) else {
            throw fail("--timeout-ms must be 1...600000, got \(requestTimeout)")
        }
        let delays = typing.keyDelay
        guard delays.lowerBound >= .zero, delays.upperBound <= .seconds(60) else {
            throw fail("--key-delay-ms must lie within 0-60000, got \(delays.lowerBound)-\(delays.upperBound)")
        }
        for (name, value) in [("--typo-rate", typing.typoRate), ("--backspace-rate", typing.backspaceRate), ("--submit-rate", typing.submitRate)] {
            guard value.isFinite, (0...1).contains(value) else { throw fail("\(name) must be a probability from 0 to 1, got \(value)") }
        }
        guard (1...4096).contains(typing.maximumLength) else { throw fail("--max-length must be 1...4096 characters, got \(typing.maximumLength)") }
    }
}
