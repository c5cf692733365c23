/// Byte arrays waiting to be copied out, in order: the body queue of an HTTP/2 stream (taken by
/// nghttp2's data source) and the encoded responses of an HTTP/1.1 connection (taken by its
/// channel).
///
/// Chunks are kept as the caller gave them (no copy into a ring buffer): the one copy on the way to
/// the socket is the copy out of here. The chunk being taken is held apart from the ones queued
/// behind it, so the usual queue — one body, one chunk — costs no allocation of its own (a
/// coordinator queues four request bodies per client call). Not thread-safe: owned by one
/// connection, on its loop.
struct ByteQueue {
    /// The chunk being taken; empty only when nothing is queued.
    private var current: [UInt8] = []
    /// Bytes of `current` already taken.
    private var offset = 0
    /// The chunks queued behind `current`, in order, from `waitingHead` on.
    private var waiting: [[UInt8]] = []
    private var waitingHead = 0
    /// Bytes queued and not yet taken.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if current.isEmpty {
            current = bytes  // nothing queued: `waiting` is empty too
        } else {
            waiting.append(bytes)
        }
        count += bytes.count
    }

    /// Copies up to `capacity` queued bytes into `buffer`; returns how many.
    mutating func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        var written = 0
        take(upTo: capacity) { part in
            (buffer + written).update(from: part.baseAddress!, count: part.count)
            written += part.count
        }
        return written
    }

    /// Appends queued bytes to `buffer` until it holds `limit` bytes or the queue is empty.
    mutating func move(into buffer: inout [UInt8], limit: Int) {
        take(upTo: limit - buffer.count) { buffer.append(contentsOf: $0) }
    }

    /// Hands out up to `maximum` bytes, chunk by chunk, and forgets them.
    private mutating func take(upTo maximum: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var taken = 0
        while taken < maximum, !current.isEmpty {
            let count = current.withUnsafeBufferPointer { source in
                let count = min(source.count - offset, maximum - taken)
                body(UnsafeBufferPointer(rebasing: source[offset..<(offset + count)]))
                return count
            }
            taken += count
            offset += count
            if offset == current.count {
                offset = 0
                if waitingHead < waiting.count {
                    current = waiting[waitingHead]
                    waiting[waitingHead] = []
                    waitingHead += 1
                } else {
                    current = []
                }
            }
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead >= 32 {
            waiting.removeFirst(waitingHead)  // amortised: at most once per 32 chunks taken
            waitingHead = 0
        }
        count -= taken
    }
}
