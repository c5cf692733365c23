import Dispatch

/// The `ids` and `titles` sorts, fed and finished on a thread of their own: the building thread
/// hands over each document's id and title key in batches while it writes the documents, and the
/// sorts are finished (``ExternalSorter/sorted()`` sorts each one's last part in memory, a million
/// keys for the synthetic 1M catalog) while it writes the terms.
///
/// Why: the write phase is one thread's (one LMDB writer), and the other core idled through it.
///
/// Backpressure: at most ``inFlight`` batches of about ``batchBytes`` wait or are being added;
/// ``add(id:docnum:titleKey:)`` blocks the building thread beyond that.
///
/// Thread ownership: the sorters and `failure` belong to `queue` from ``init`` until ``wait()`` or
/// ``drain()`` returns; the batch being filled belongs to the building thread; the sorted records
/// (or the error) belong to the caller of ``wait()`` once it returns. Every path out of the build
/// calls ``drain()`` or ``wait()`` (a failed build removes the spill files the sorts write).
final class KeySorts: @unchecked Sendable {
    static let batchBytes = 1 << 20
    static let inFlight = 2

    private let ids: ExternalSorter
    private let titles: ExternalSorter
    private let queue = DispatchQueue(label: "typeahead.build.keys", qos: .userInitiated)
    private let room = DispatchSemaphore(value: KeySorts.inFlight)
    private var failure: (any Error)?
    private var result: Result<Sorted, any Error>?
    /// Framed records: u32le id length, id, the document number (native order, as the `ids` sort
    /// holds it), u32le title key length, title key (length 0: none).
    private var batch: [UInt8] = []

    /// Both sorts, and the runs they spilled to disk.
    typealias Sorted = (ids: SortedRecords, titles: SortedRecords, spilledRuns: Int)

    /// Takes over `ids` and `titles`: neither may be used by the caller any more.
    init(ids: ExternalSorter, titles: ExternalSorter) {
        self.ids = ids
        self.titles = titles
        batch.reserveCapacity(Self.batchBytes + 1024)
    }

    /// Adds a document's id (keyed to its number) and, unless it is empty, its title key.
    func add(id: UnsafeRawBufferPointer, docnum: UInt32, titleKey: UnsafeRawBufferPointer) {
        append(UInt32(id.count))
        batch.append(contentsOf: id)
        withUnsafeBytes(of: docnum) { batch.append(contentsOf: $0) }   // as `writeKeys` loads it
        append(UInt32(titleKey.count))
        batch.append(contentsOf: titleKey)
        if batch.count >= Self.batchBytes { submit() }
    }

    /// Starts finishing both sorts once every batch is added.
    func finish() {
        submit()
        queue.async { [self] in
            if let failure {
                result = .failure(failure)
                return
            }
            let spilled = ids.spilledRuns + titles.spilledRuns
            result = Result { (try ids.sorted(), try titles.sorted(), spilled) }
        }
    }

    /// Waits for both sorts (after ``finish()``); returns them, or throws why one failed. Once.
    func wait() throws -> Sorted {
        drain()
        guard let result else { throw IndexError(.internal, "the ids and titles sorts were not finished, or taken already") }
        self.result = nil
        return try result.get()
    }

    /// Waits for whatever was handed over to end, keeping nothing: a failed build's way out. Any
    /// number of times.
    func drain() {
        queue.sync {}
    }

    private func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { batch.append(contentsOf: $0) }
    }

    private func submit() {
        guard !batch.isEmpty else { return }
        var handed: [UInt8] = []
        handed.reserveCapacity(Self.batchBytes + 1024)
        swap(&handed, &batch)
        nonisolated(unsafe) let records = handed
        room.wait()
        queue.async { [self] in
            defer { room.signal() }
            guard failure == nil else { return }
            do {
                try records.withUnsafeBytes { try add(records: $0) }
            } catch {
                failure = error
            }
        }
    }

    /// On `queue`: the batch's records into the sorters.
    private func add(records: UnsafeRawBufferPointer) throws {
        var at = 0
        func take() -> UnsafeRawBufferPointer {
            let count = Int(UInt32(littleEndian: records.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            defer { at += 4 + count }
            return UnsafeRawBufferPointer(rebasing: records[(at + 4)..<(at + 4 + count)])
        }
        while at < records.count {
            let id = take()
            let docnum = UnsafeRawBufferPointer(rebasing: records[at..<(at + 4)])
            at += 4
            let titleKey = take()
            try ids.add(key: id, value: docnum)
            if !titleKey.isEmpty { try titles.add(key: titleKey, value: UnsafeRawBufferPointer(start: nil, count: 0)) }
        }
    }
}
