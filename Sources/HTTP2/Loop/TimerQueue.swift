/// Timers of one event loop: a binary min-heap of (deadline, id) plus the callbacks by id.
/// Cancelling removes the callback; its heap entry is skipped when it surfaces (lazy deletion).
/// Loop-thread only.
struct TimerQueue {
    struct Entry {
        var deadline: UInt64
        var id: UInt64
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
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        return id
    }

    mutating func cancel(_ id: UInt64) { callbacks[id] = nil }

    /// Removes and returns the callbacks due at `now`, earliest first.
    mutating func due(at now: UInt64) -> [() -> Void] {
        var result: [() -> Void] = []
        while let top = heap.first, top.deadline <= now {
            pop()
            if let callback = callbacks.removeValue(forKey: top.id) { result.append(callback) }
        }
        return result
    }

    private mutating func pop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
