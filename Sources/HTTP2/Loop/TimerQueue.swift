/// Timers of one event loop: a binary min-heap of (deadline, id) plus the callbacks by id.
/// Cancelling removes the callback; its heap entry is skipped when it surfaces (lazy deletion), so
/// scheduling and cancelling are O(log n) and O(1), and firing is O(log n) per timer.
///
/// Ties are broken by id, i.e. by the order of scheduling, so timers with the same deadline fire
/// first-scheduled first. Loop-thread only.
struct TimerQueue {
    struct Entry {
        var deadline: UInt64
        var id: UInt64

        /// The heap order: earlier deadline first, then earlier scheduled (ids only grow).
        @inline(__always)
        func precedes(_ other: Entry) -> Bool { (deadline, id) < (other.deadline, other.id) }
    }

    private var heap: [Entry] = []
    private var callbacks: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    var nextDeadline: UInt64? {
        mutating get {
            while let top = heap.first, callbacks[top.id] == nil { pop() }
            return heap.first?.deadline
        }
    }

    mutating func schedule(at deadline: UInt64, _ callback: @escaping () -> Void) -> UInt64 {
        let id = nextID
        nextID += 1
        callbacks[id] = callback
        heap.append(Entry(deadline: deadline, id: id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return id
    }

    /// Forgets the timer; a no-op for one that already fired or was cancelled.
    mutating func cancel(_ id: UInt64) { callbacks[id] = nil }

    /// Removes and returns the earliest callback due at `now`, or nil when none is.
    ///
    /// One at a time, rather than all due timers as a batch, so that a callback can still cancel
    /// a timer due at the same moment (a hedge timer cancelling the deadline timer, say).
    mutating func popDue(at now: UInt64) -> (() -> Void)? {
        while let top = heap.first, top.deadline <= now {
            pop()
            if let callback = callbacks.removeValue(forKey: top.id) { return callback }
        }
        return nil
    }

    /// Drops every timer (their callbacks never run), releasing what the callbacks captured.
    mutating func removeAll() {
        heap = []
        callbacks = [:]
    }

    private mutating func pop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            if first == parent { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
