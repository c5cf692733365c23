import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How a long admin command shows where it stands: on a terminal, one line redrawn in place (a bar,
/// entries/s, bytes, ETA, per-shard percentages); otherwise (a log, CI) a plain line every few
/// seconds. Notes go above the bar. Everything is written to standard error.
///
/// Thread-safe: upload tasks report concurrently; rendering happens on the reporting thread, at
/// most every 200 ms (terminal) or 5 s (plain), so reporting costs a lock and a clock read.
public final class ProgressReporter: Sendable {
    public enum Style: Sendable {
        case terminal, plain, silent
    }

    private struct State {
        var shards: [String] = []
        var expected: [Int] = []
        var sent: [Int] = []
        var bytes = 0
        var started = ContinuousClock.now
        var lastRender: ContinuousClock.Instant?
        var active = false
    }

    public let style: Style
    private let state = Mutex(State())
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where text goes (standard error by default; tests capture it).
    public init(style: Style? = nil, write: (@Sendable (String) -> Void)? = nil) {
        self.style = style ?? (isatty(2) != 0 ? .terminal : .plain)
        self.write = write ?? { FileHandle.standardError.write(Data($0.utf8)) }
    }

    public func note(_ text: String) {
        guard style != .silent else { return }
        let redraw = state.withLock { $0.active }
        write((style == .terminal && redraw ? "\r\u{1B}[2K" : "") + text + "\n")
        if redraw { render(force: true) }
    }

    func start(shards: [String], perShard: [Int]) {
        state.withLock { state in
            state = State(shards: shards, expected: perShard, sent: Array(repeating: 0, count: perShard.count), bytes: 0,
                          started: .now, lastRender: nil, active: true)
        }
        render(force: true)
    }

    /// Entries of `shard` sent (`absolute`: the shard's count so far, from a resumed upload).
    func sent(shard: Int, entries: Int, bytes: Int, absolute: Bool) {
        state.withLock { state in
            guard shard < state.sent.count else { return }
            state.sent[shard] = absolute ? max(state.sent[shard], entries) : state.sent[shard] + entries
            state.bytes += bytes
        }
        render(force: false)
    }

    func finish() {
        render(force: true)
        state.withLock { $0.active = false }
        if style == .terminal { write("\n") }
    }

    /// The progress line: `[#####·····]  52%  61,000/117,000 entries  48,210/s  18.3 MB  ETA 0:01  shard-0 60% shard-1 44%`.
    private static func line(_ state: borrowing State, now: ContinuousClock.Instant, width: Int = 24) -> String {
        let total = state.expected.reduce(0, +), done = state.sent.reduce(0, +)
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        let elapsed = now - state.started
        let seconds = max(1e-3, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        let rate = Double(done) / seconds
        let eta = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "·", count: width - filled)
        let shards = zip(state.shards, zip(state.sent, state.expected)).map { name, counts in
            "\(name) \(counts.1 == 0 ? 100 : counts.0 * 100 / counts.1)%"
        }.joined(separator: " ")
        return String(format: "[%@] %3d%%  %d/%d entries  %.0f/s  %.1f MB  ETA %d:%02d  ", bar, Int(fraction * 100), done, total, rate,
                      Double(state.bytes) / 1e6, eta / 60, eta % 60) + shards
    }

    private func render(force: Bool) {
        guard style != .silent else { return }
        let now = ContinuousClock.now
        let text: String? = state.withLock { state in
            guard state.active else { return nil }
            let interval: Duration = style == .terminal ? .milliseconds(200) : .seconds(5)
            if !force, let last = state.lastRender, now - last < interval { return nil }
            state.lastRender = now
            return Self.line(state, now: now)
        }
        guard let text else { return }
        write(style == .terminal ? "\r\u{1B}[2K" + text : text + "\n")
    }
}
