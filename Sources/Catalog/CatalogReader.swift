import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Counts of what a `CatalogReader` has read so far.
public struct CatalogSummary: Sendable, Hashable {
    /// Lines read, blank ones included.
    public var lines: Int
    /// Valid entries returned.
    public var entries: Int
    /// Invalid lines returned as errors (duplicate ids included).
    public var invalid: Int
    /// Occurrences of unknown top-level fields in valid entries.
    public var unknownFields: Int
    /// Valid lines whose blank or differently written values were read as meant (see ``CatalogNotices``).
    public var notices = CatalogNoticeTally()
    /// Bytes consumed, newlines included.
    public var bytes: Int

    public init(lines: Int = 0, entries: Int = 0, invalid: Int = 0, unknownFields: Int = 0, bytes: Int = 0) {
        self.lines = lines
        self.entries = entries
        self.invalid = invalid
        self.unknownFields = unknownFields
        self.bytes = bytes
    }
}

/// Streams a catalog line by line, validating each line and the uniqueness of ids.
///
/// Memory: one read buffer of 2 MiB (growing to `maximumLineBytes` + 1 MiB if the limit is
/// raised), whatever the file size: a line longer than the limit is skipped as it streams past,
/// not buffered. Plus a dictionary from each id seen to its first line, to detect duplicates and
/// name both lines: 32–64 bytes per entry (24-byte buckets at a load factor between 3/8 and 3/4)
/// for ids of up to 15 UTF-8 bytes, which Swift stores inline; longer ids add a heap string
/// (their length plus ~32 bytes) unless the caller still holds the entry, which shares it. So
/// 30–60 MB per million short ids.
///
/// Input is read with read(2) in 1 MiB chunks. Lines end at "\n"; a "\r" before it is ignored,
/// and so is a UTF-8 byte-order mark at the start of the first line. The last line needs no "\n".
/// Blank lines are skipped but counted, so line numbers match an editor's.
///
/// A reader is not thread-safe; use one per thread.
///
/// Example:
/// ```swift
/// let reader = try CatalogReader(path: "deploy/catalog/sample.jsonl")
/// while let result = try reader.next() {
///     switch result {
///     case .success(let entry): index(entry)
///     case .failure(let error): print(error)   // line 7: missing required field "id"
///     }
/// }
/// print(reader.summary.entries)
/// ```
public final class CatalogReader {
    /// The limits lines are validated against.
    public let limits: CatalogLimits
    /// What has been read so far.
    public private(set) var summary = CatalogSummary()
    /// The size of the file being read, when it is a regular file (nil for a pipe or bytes).
    public var sizeHint: Int? { input?.sizeHint }

    private static let chunkBytes = 1 << 20

    private let input: FileInput?
    private let parser: JSONLineParser
    /// Bytes of the input; the unconsumed ones are `buffer[start..<end]`.
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEndOfInput: Bool
    /// Bytes of an over-long line discarded so far, while skipping to its end.
    private var skippedBytes = 0
    private var isSkipping = false
    private var lineNumber = 0
    /// The line each id was first seen on, keyed by the id's bytes (canonically equal spellings,
    /// "é" and "e\u{301}", are different ids) through their 128-bit hash (``IDHash``): 28 bytes an id
    /// whatever its length, where a key array per id took about a hundred (a gigabyte for a 10M-line
    /// catalog, the most a streamed build held). Emptied at the end of the input.
    private var firstLineOfId: [IDHash: UInt32] = [:]

    /// Opens a catalog file; `path` "-" reads standard input.
    ///
    /// Throws `CatalogIOError` ("cannot open catalog shop.jsonl: No such file or directory").
    public init(path: String, limits: CatalogLimits = .init()) throws {
        self.limits = limits
        input = try FileInput(path: path)
        parser = JSONLineParser(limits: limits)
        buffer = [UInt8](repeating: 0, count: 2 * Self.chunkBytes)
        atEndOfInput = false
    }

    /// Reads a catalog held in memory (for tests, or text produced in-process).
    public init(bytes: [UInt8], limits: CatalogLimits = .init()) {
        self.limits = limits
        input = nil
        parser = JSONLineParser(limits: limits)
        buffer = bytes
        end = bytes.count
        atEndOfInput = true
    }

    /// The next entry or invalid line, skipping blank lines; nil at the end of the input.
    ///
    /// A line whose id was already seen is returned as an error naming both lines, and the first
    /// entry stays the valid one. Throws `CatalogIOError` if reading fails.
    ///
    /// Complexity: O(length of the line), amortized over reads.
    public func next() throws -> Result<CatalogEntry, CatalogLineError>? {
        while let (number, raw) = try nextNumberedLine(mayRead: true) {
            if let result = settle(Self.parse(raw, number: number, in: buffer, with: parser), line: number) { return result }
        }
        firstLineOfId = [:]
        return nil
    }

    /// The next entries and invalid lines (blank ones skipped), in line order, exactly as many
    /// calls of ``next()`` would return them: the lines already read into the buffer (at least one,
    /// at most `maximumLines`), parsed on up to `threads` threads at once. Nil at the end of the input.
    ///
    /// Why: parsing (yajl's events into an entry, UTF-8 validation) is most of reading a catalog,
    /// 2 µs a line, and lines are independent; only the duplicate-id check and the counts need
    /// line order, and they are applied after, on this thread. A 1M-entry catalog (155 MB) reads
    /// in 1.3 s instead of 1.85 s on two cores (the id table and the reading stay on one).
    ///
    /// Thread ownership: worker `i` uses only its own parser (`workers[i]`) and writes only its own
    /// slice of the outcomes; the buffer is read by all and written by none until they finish.
    public func nextBatch(maximumLines: Int = 8192, threads: Int = CatalogReader.parallelism)
        throws -> [Result<CatalogEntry, CatalogLineError>]? {
        guard let first = try nextNumberedLine(mayRead: true) else {
            firstLineOfId = [:]
            return nil
        }
        var lines = [first]
        while lines.count < maximumLines, let line = try nextNumberedLine(mayRead: false) { lines.append(line) }
        let workerCount = max(1, min(threads, lines.count / Self.linesPerWorker))
        while workers.count < workerCount - 1 { workers.append(JSONLineParser(limits: limits)) }
        let parsers = [parser] + workers.prefix(workerCount - 1)
        let outcomes = [JSONLineParser.Outcome](unsafeUninitializedCapacity: lines.count) { slots, initialized in
            buffer.withUnsafeBufferPointer { all in
                nonisolated(unsafe) let slots = slots, all = all, parsers = parsers, lines = lines
                let share = (lines.count + workerCount - 1) / workerCount
                let work = { @Sendable (worker: Int) in
                    for index in (worker * share)..<min(lines.count, (worker + 1) * share) {
                        let (number, raw) = lines[index]
                        (slots.baseAddress! + index).initialize(to: Self.parse(raw, number: number, in: all, with: parsers[worker]))
                    }
                }
                if workerCount == 1 { work(0) } else { DispatchQueue.concurrentPerform(iterations: workerCount, execute: work) }
            }
            initialized = lines.count
        }
        if firstLineOfId.isEmpty, let size = input?.sizeHint, summary.bytes > 0 {
            // Room for the ids of the whole file, by the lines of this first batch: growing the
            // table by doubling rehashed every id seen (a tenth of reading a 1M-line catalog).
            let expected = Double(size) * Double(lines.count) / Double(summary.bytes)
            firstLineOfId.reserveCapacity(Int(min(expected * 1.1, Double(Self.idReservationLimit))))
        }
        var results: [Result<CatalogEntry, CatalogLineError>] = []
        results.reserveCapacity(lines.count)
        for (index, outcome) in outcomes.enumerated() {
            if let result = settle(outcome, line: lines[index].number) { results.append(result) }
        }
        return results
    }

    /// Threads ``nextBatch(maximumLines:threads:)`` parses on by default: the online cores, at most 8.
    public static let parallelism = max(1, min(8, sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Lines a worker of a batch parses at least (fewer lines are parsed on fewer threads: waking
    /// a thread costs what parsing a few dozen lines does).
    static let linesPerWorker = 256

    /// Most ids the first batch reserves room for (a hint taken from the file's size).
    static let idReservationLimit = 1 << 26

    /// Additional parsers for ``nextBatch(maximumLines:threads:)``, made when first needed.
    private var workers: [JSONLineParser] = []

    /// Parses one raw line (line 1 may start with a byte-order mark, which is dropped).
    private static func parse(_ raw: RawLine, number: Int, in all: UnsafeBufferPointer<UInt8>,
                              with parser: JSONLineParser) -> JSONLineParser.Outcome {
        switch raw {
        case .tooLong(let length):
            return .invalid(lineTooLongReason(length: length, limit: parser.limits.maximumLineBytes))
        case .bytes(let range):
            var line = UnsafeBufferPointer(rebasing: all[range])
            if number == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) {
                line = UnsafeBufferPointer(rebasing: line.dropFirst(3))
            }
            return parser.parse(line)
        }
    }

    private static func parse(_ raw: RawLine, number: Int, in buffer: [UInt8], with parser: JSONLineParser) -> JSONLineParser.Outcome {
        buffer.withUnsafeBufferPointer { parse(raw, number: number, in: $0, with: parser) }
    }

    /// What a parsed line is in line order: nil for a blank line; a duplicate id is an error.
    private func settle(_ outcome: JSONLineParser.Outcome, line number: Int) -> Result<CatalogEntry, CatalogLineError>? {
        switch outcome {
        case .blank:
            return nil
        case .invalid(let reason):
            summary.invalid += 1
            return .failure(CatalogLineError(line: number, reason: reason))
        case .entry(let entry, let unknownFields, let notices):
            // One hash lookup: the defaulted subscript inserts our line number when absent.
            var firstLine = 0
            update(&firstLineOfId[IDHash(entry.id), default: UInt32(clamping: number)]) { firstLine = Int($0) }
            if firstLine != min(number, Int(UInt32.max)) {
                summary.invalid += 1
                return .failure(CatalogLineError(
                    line: number, reason: "duplicate id \(quoted(entry.id)) (first seen on line \(firstLine))"))
            }
            summary.entries += 1
            summary.unknownFields += unknownFields
            summary.notices.record(notices, line: number)
            return .success(entry)
        }
    }

    /// The next raw line with its number; with `mayRead` false, only a line the buffer already
    /// holds whole (nil when reading would be needed), so that earlier lines' ranges stay valid.
    private func nextNumberedLine(mayRead: Bool) throws -> (number: Int, raw: RawLine)? {
        guard let raw = try nextRawLine(mayRead: mayRead) else { return nil }
        lineNumber += 1
        summary.lines += 1
        return (lineNumber, raw)
    }

    private enum RawLine {
        /// A line's bytes in `buffer`, without the "\n".
        case bytes(Range<Int>)
        /// A line longer than the limit, already skipped; its length without the "\n".
        case tooLong(Int)
    }

    private func nextRawLine(mayRead: Bool) throws -> RawLine? {
        while true {
            let newline: Int? = buffer.withUnsafeBytes { raw in
                guard start < end, let found = memchr(raw.baseAddress! + start, 0x0A, end - start) else { return nil }
                return UnsafeRawPointer(found) - raw.baseAddress!
            }
            if let newline {
                let lineStart = start
                start = newline + 1
                summary.bytes += newline + 1 - lineStart
                if isSkipping {
                    let length = skippedBytes + newline - lineStart
                    summary.bytes += skippedBytes
                    isSkipping = false
                    skippedBytes = 0
                    return .tooLong(length)
                }
                return .bytes(lineStart..<newline)
            }
            if atEndOfInput {
                let lineStart = start
                start = end
                summary.bytes += end - lineStart
                if isSkipping {
                    let length = skippedBytes + end - lineStart
                    summary.bytes += skippedBytes
                    isSkipping = false
                    skippedBytes = 0
                    return .tooLong(length)
                }
                return lineStart < end ? .bytes(lineStart..<end) : nil
            }
            // No newline among the buffered bytes: make room, then read more.
            guard mayRead else { return nil }
            let pending = end - start
            if isSkipping || pending > limits.maximumLineBytes + 1 {  // + 1: a "\r" may follow
                // Already too long whatever follows: drop what we have instead of buffering it.
                isSkipping = true
                skippedBytes += pending
                start = 0
                end = 0
            } else if start > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    _ = memmove(raw.baseAddress!, raw.baseAddress! + start, pending)
                }
                start = 0
                end = pending
            }
            try fill()
        }
    }

    /// Reads up to one chunk after `end`; sets `atEndOfInput` when there is nothing more.
    private func fill() throws {
        guard let input else {
            atEndOfInput = true
            return
        }
        if buffer.count - end < Self.chunkBytes {
            buffer.append(contentsOf: repeatElement(0, count: Self.chunkBytes - (buffer.count - end)))
        }
        let count = try buffer.withUnsafeMutableBytes { raw in
            try input.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[end..<(end + Self.chunkBytes)]))
        }
        if count == 0 { atEndOfInput = true }
        end += count
    }
}

@inline(__always)
private func update<Value>(_ value: inout Value, _ body: (inout Value) -> Void) { body(&value) }

/// An id's bytes as 128 bits: two SipHash values (the process's random seed) of the bytes, the
/// second behind a prefix byte, so the two are as independent as two keyed hashes. Two different
/// ids share one with probability 2^-128: for a 10M-line catalog, about 10^-25 that any pair of
/// its ids does, far below a memory error's odds, while the bytes themselves would cost the
/// duplicate check a key array per id.
struct IDHash: Hashable {
    let first: UInt64
    let second: UInt64

    init(_ id: String) {
        var id = id
        (first, second) = id.withUTF8 { bytes in
            var a = Hasher(), b = Hasher()
            a.combine(bytes: UnsafeRawBufferPointer(bytes))
            b.combine(UInt8(0xA5))
            b.combine(bytes: UnsafeRawBufferPointer(bytes))
            return (UInt64(UInt(bitPattern: a.finalize())), UInt64(UInt(bitPattern: b.finalize())))
        }
    }
}
