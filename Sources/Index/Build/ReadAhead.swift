import Dispatch
import Synchronization

/// Calls a source of batches on a thread of its own, up to ``depth`` batches ahead of the one
/// taking them (``next()``).
///
/// Why: a build's first pass reads a batch (parsing it on every core), checks it (one core), then
/// analyses it (every core) while the batch before is interned and sorted (``RankedIntake``). Done
/// in turn on the building thread, the serial steps between those parallel ones left a core idle:
/// on the synthetic 1M catalog the pass kept 1.46 of 2 cores busy. Read ahead, the next batch is
/// parsed and checked while this one is analysed.
///
/// Order and errors: batches come in the source's order. What the source throws is thrown by the
/// ``next()`` that would have returned the batch, after every batch before it; after it (or after
/// nil) the source is not called again.
///
/// Backpressure: at most ``depth`` batches wait here; the reading thread blocks beyond that, so
/// memory holds that many batches more than without read-ahead.
///
/// Thread ownership: `source` (and whatever it captures) is called only on the reading thread,
/// from ``init`` until it returns nil or throws, or until ``stop()`` returns; then it belongs to
/// the caller again. ``next()`` and ``stop()`` are called from one thread (the building one).
final class ReadAhead<Batch: Sendable>: @unchecked Sendable {
    /// Batches read but not yet taken, at most.
    let depth: Int
    /// Dropped by ``stop()``, so that a caller lending a non-escaping closure
    /// (`withoutActuallyEscaping`) has it back unshared.
    private var source: (() throws -> Batch?)?
    /// Read results not yet taken, oldest first; the last one nil or an error ends them.
    private let ready = Mutex<[Result<Batch?, any Error>]>([])
    /// Free places among the `depth`, and results waiting.
    private let room: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Whether ``next()`` returned nil or threw (it then returns nil again without waiting).
    private var ended = false
    private var joined = false

    init(depth: Int = 2, source: @escaping () throws -> Batch?) {
        self.depth = max(1, depth)
        self.source = source
        // Made empty and then given its places: libdispatch traps when a semaphore is released
        // below the value it was created with, as `room` is when batches read are never taken.
        room = DispatchSemaphore(value: 0)
        for _ in 0..<self.depth { room.signal() }
        DispatchQueue.global().async { [self] in read() }
    }

    /// The next batch in the source's order, nil after the last, or what the source threw.
    func next() throws -> Batch? {
        guard !ended else { return nil }
        filled.wait()
        let result = ready.withLock { $0.removeFirst() }
        room.signal()
        switch result {
        case .success(let batch?):
            return batch
        case .success(nil):
            ended = true
            return nil
        case .failure(let error):
            ended = true
            throw error
        }
    }

    /// Stops reading: waits for the source call under way, if any, and calls it no more. Batches
    /// read and not taken are dropped. Idempotent; call it before the source's captures are used
    /// elsewhere (and before a failed build removes the files the source writes to).
    func stop() {
        guard !joined else { return }
        joined = true
        ended = true
        stopping.store(true, ordering: .relaxed)
        room.signal()   // the reading thread may be waiting for a place
        finished.wait()
        source = nil
    }

    deinit {
        // A reader never stopped would call `source` after its owner is gone.
        precondition(joined, "ReadAhead released while reading: call stop()")
    }

    /// The reading thread's loop.
    private func read() {
        defer { finished.signal() }
        while true {
            room.wait()
            if stopping.load(ordering: .relaxed) { return }
            let result = Result { try source?() }
            ready.withLock { $0.append(result) }
            filled.signal()
            if case .success(.some) = result { continue }
            return
        }
    }
}
