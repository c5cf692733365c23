import Catalog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where `typeahead index` stands, on standard error: while the catalog is read, lines, lines/s,
/// bytes and (for a file) a bar and an ETA; then each build stage as it ends. On a terminal one
/// line redrawn in place at most every 200 ms; otherwise (a log, CI) a plain line every 5 s and
/// one per stage; or nothing.
///
/// Thread ownership: one thread at a time. The catalog reader's reports (``read(_:totalBytes:)``,
/// ``finishedReading(_:)``) come from the build's read-ahead thread (``Shard/build``), all of them
/// before the build returns its last batch; the stages' and ``end()`` come from the command's
/// thread after that.
final class IndexProgress {
    enum Style: String {
        case terminal, plain, none
    }

    let style: Style
    private let write: (String) -> Void
    private let started = ContinuousClock.now
    private var lastRender: ContinuousClock.Instant?
    private var stagesDone = 0
    private var buildStarted: ContinuousClock.Instant?
    /// A terminal line is drawn and not ended yet.
    private var showing = false

    /// - Parameter write: where text goes (standard error unless a test captures it).
    init(style: Style? = nil, write: ((String) -> Void)? = nil) {
        self.style = style ?? (isatty(2) != 0 ? .terminal : .plain)
        self.write = write ?? { FileHandle.standardError.write(Data($0.utf8)) }
    }

    /// What the catalog reader has read so far (`totalBytes`: the file's size, nil for a pipe).
    func read(_ summary: CatalogSummary, totalBytes: Int?) {
        guard style != .none, isDue() else { return }
        show(Self.readingLine(lines: summary.lines, bytes: summary.bytes, totalBytes: totalBytes, seconds: seconds(since: started)))
    }

    /// The catalog is read: its last figures, then the build's line.
    func finishedReading(_ summary: CatalogSummary) {
        guard style != .none else { return }
        show(Self.readingLine(lines: summary.lines, bytes: summary.bytes, totalBytes: summary.bytes, seconds: seconds(since: started)))
        end()
        buildStarted = .now
    }

    /// One stage of the build ended.
    func stage(_ name: String, seconds: Double) {
        guard style != .none else { return }
        let text = String(format: "%@ %.2f s", name, seconds)
        if style == .plain { return write("building: \(text)\n") }
        // One short line, whatever the number of stages: the time so far and the last one done.
        stagesDone += 1
        let elapsed = self.seconds(since: buildStarted ?? started)
        show(String(format: "building  %.1f s  %d stages done, the last: %@", elapsed, stagesDone, text))
    }

    /// The build is over, or the command stops early: a terminal's line is ended, so what is
    /// printed next starts on a line of its own.
    func end() {
        if showing { write("\n") }
        showing = false
    }

    /// `reading  [##########··············]  41%  412,000 lines  120,310 lines/s  64.0 of 155.5 MB  ETA 0:03`,
    /// without the bar, the percentage and the ETA when the size is not known.
    static func readingLine(lines: Int, bytes: Int, totalBytes: Int?, seconds: Double, width: Int = 24) -> String {
        let rate = Double(lines) / max(seconds, 1e-3)
        let mb = { (n: Int) in String(format: "%.1f", Double(n) / 1e6) }
        let counts = "\(grouped(lines)) lines  \(grouped(Int(rate.rounded()))) lines/s"
        guard let total = totalBytes, total > 0 else { return "reading  \(counts)  \(mb(bytes)) MB" }
        let fraction = min(1, Double(bytes) / Double(total))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "·", count: width - filled)
        let byteRate = Double(bytes) / max(seconds, 1e-3)
        let eta = byteRate > 0 ? Int((Double(total - min(bytes, total)) / byteRate).rounded()) : 0
        return "reading  [\(bar)]  \(Int(fraction * 100))%  \(counts)  \(mb(bytes)) of \(mb(total)) MB  ETA \(eta / 60):"
            + String(format: "%02d", eta % 60)
    }

    /// 1234567 as "1,234,567".
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    private func show(_ line: String) {
        write(style == .terminal ? "\r\u{1B}[2K" + line : line + "\n")
        showing = style == .terminal
    }

    /// Whether a line is due: every 200 ms on a terminal, every 5 s otherwise.
    private func isDue() -> Bool {
        let now = ContinuousClock.now
        let interval: Duration = style == .terminal ? .milliseconds(200) : .seconds(5)
        if let lastRender, now - lastRender < interval { return false }
        lastRender = now
        return true
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
