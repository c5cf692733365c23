import Foundation
internal import CSystem

/// Sorts records (a key and a value, both bytes) by key within a memory budget: an external merge
/// sort, so that a build's peak memory does not grow with the catalog.
///
/// Records gather in one arena. When the arena passes `budget` bytes it is sorted and written to a
/// spill file as a run; ``sorted()`` spills the last part too and merges the runs with a binary
/// heap, reading each through a buffer of ``readBuffer`` bytes. A sort that never passed its budget
/// (every catalog of a few hundred thousand entries, with the default budget) touches no file.
///
/// Order: keys compare as bytes (memcmp, a shorter key first when it is a prefix of the other);
/// equal keys come in the order they were added (each run is sorted stably, and runs tie in the
/// order they were written).
///
/// Memory: at most `budget` bytes of records and their framing, plus 24 bytes a record (its slot:
/// ``Slot``), while adding; ``readBuffer`` bytes per run while merging (or, for a sort that stayed
/// in memory, its arena and 8 bytes a record). Disk: the records once, removed as the sort ends.
/// Complexity: O(n log n) comparisons; every record is written and read at most once beyond memory.
///
/// Example:
/// ```swift
/// let sorter = ExternalSorter(directory: "/tmp/build", name: "ids", budget: 64 << 20)
/// try sorter.add(key: Array("b".utf8), value: [1])
/// try sorter.add(key: Array("a".utf8), value: [2])
/// let records = try sorter.sorted()
/// while let (key, value) = try records.next() { … }   // "a" [2], then "b" [1]
/// ```
final class ExternalSorter {
    /// Bytes of each run's read buffer while merging.
    static let readBuffer = 1 << 20

    private let directory: String
    private let name: String
    private let budget: Int
    /// Records as added: u32le key length, u32le value length, key, value; `used` bytes of it.
    /// Allocated here (the whole budget at once, at the first record: grown by doubling, it would
    /// need its old and new buffers at the same time, and pages never written are never resident,
    /// so a small sort costs no more), and handed to ``SortedRecords`` when the sort stays in
    /// memory, whose views into it then stay valid for as long as it lives.
    private var arena = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var used = 0
    /// Where each record starts in `arena`, with its key's first 16 bytes: most comparisons of a
    /// sort end there, without a load from the arena (a cache miss each, at a random place). Eight
    /// were not enough: a rank key's first eight are its weight, which many entries share.
    private var starts: [Slot] = []
    private var runs: [SpillFile] = []
    /// Records added in all.
    private(set) var count = 0
    /// Runs on disk once ``sorted()`` has spilled the last part (0: the sort stays in memory).
    var spilledRuns: Int { runs.isEmpty ? 0 : runs.count + (starts.isEmpty ? 0 : 1) }

    /// A sorter spilling to files named after `name` in `directory` (which must exist) once its
    /// records pass `budget` bytes.
    init(directory: String, name: String, budget: Int) {
        self.directory = directory
        self.name = name
        self.budget = max(1 << 12, budget)
    }

    deinit { arena.deallocate() }

    /// Adds one record; `key` and `value` are copied.
    func add(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        let size = 8 + key.count + value.count
        if used > 0, used + size > budget { try spill() }
        if used + size > arena.count {
            // The first record, or one record larger than the budget.
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(budget, used + size), alignment: 8)
            _ = grown.bindMemory(to: UInt8.self)   // bytes, compared as such (``key(at:in:)``)
            if used > 0 { grown.baseAddress!.copyMemory(from: arena.baseAddress!, byteCount: used) }
            arena.deallocate()
            arena = grown
        }
        starts.append(Slot(prefix: Slot.prefix(of: key, from: 0), next: Slot.prefix(of: key, from: 8), offset: used))
        arena.storeBytes(of: UInt32(key.count).littleEndian, toByteOffset: used, as: UInt32.self)
        arena.storeBytes(of: UInt32(value.count).littleEndian, toByteOffset: used + 4, as: UInt32.self)
        if !key.isEmpty { (arena.baseAddress! + used + 8).copyMemory(from: key.baseAddress!, byteCount: key.count) }
        if !value.isEmpty { (arena.baseAddress! + used + 8 + key.count).copyMemory(from: value.baseAddress!, byteCount: value.count) }
        used += size
        count += 1
    }

    func add(key: [UInt8], value: [UInt8]) throws {
        try key.withUnsafeBytes { k throws in try value.withUnsafeBytes { v throws in try add(key: k, value: v) } }
    }

    /// The records in key order; the sorter is used up (empty after).
    func sorted() throws -> SortedRecords {
        defer {
            starts = []
            runs = []
        }
        if runs.isEmpty {
            sortStarts()
            // The arena goes with the records.
            let records = SortedRecords(arena: arena, order: starts.map(\.offset))
            arena = UnsafeMutableRawBufferPointer(start: nil, count: 0)
            used = 0
            return records
        }
        if !starts.isEmpty { try spill() }
        arena.deallocate()
        arena = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var cursors: [RunCursor] = []
        for run in runs {
            try run.finishWriting()
            cursors.append(try RunCursor(file: run, capacity: Self.readBuffer))
        }
        return try SortedRecords(cursors: cursors)
    }

    private func sortStarts() {
        let all = UnsafeRawBufferPointer(arena)
        starts.sort { a, b in
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            if a.next != b.next { return a.next < b.next }
            let order = compareBytes(Self.key(at: a.offset, in: all), Self.key(at: b.offset, in: all))
            return order != 0 ? order < 0 : a.offset < b.offset
        }
    }

    private func spill() throws {
        sortStarts()
        let file = try SpillFile(creating: "\(directory)/\(name)-\(runs.count).run")
        let all = UnsafeRawBufferPointer(arena)
        for (index, slot) in starts.enumerated() {
            let start = slot.offset
            if index + SortedRecords.prefetchDistance < starts.count {
                csystem_prefetch(all.baseAddress! + starts[index + SortedRecords.prefetchDistance].offset)
            }
            let length = 8 + Int(all.loadUnaligned(fromByteOffset: start, as: UInt32.self).littleEndian)
                + Int(all.loadUnaligned(fromByteOffset: start + 4, as: UInt32.self).littleEndian)
            try file.append(UnsafeRawBufferPointer(rebasing: all[start..<(start + length)]))
        }
        runs.append(file)
        used = 0
        starts.removeAll(keepingCapacity: true)
    }

    static func key(at start: Int, in all: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
        let length = Int(all.loadUnaligned(fromByteOffset: start, as: UInt32.self).littleEndian)
        return UnsafeBufferPointer(start: all.baseAddress!.assumingMemoryBound(to: UInt8.self) + start + 8, count: length)
    }
}

/// A record of an ``ExternalSorter``'s arena: where it starts, and its key's first 16 bytes as two
/// big-endian numbers (zeros past a shorter key's end), so that comparing them as numbers orders
/// the keys as memcmp does, unless they are equal.
private struct Slot {
    var prefix: UInt64
    var next: UInt64
    var offset: Int

    /// Bytes `start..<start + 8` of `key` as a big-endian number.
    static func prefix(of key: UnsafeRawBufferPointer, from start: Int) -> UInt64 {
        var prefix: UInt64 = 0
        for index in start..<(start + 8) { prefix = prefix << 8 | UInt64(index < key.count ? key[index] : 0) }
        return prefix
    }
}

/// An ``ExternalSorter``'s records in key order, read once with ``next()``.
final class SortedRecords {
    /// A sort that stayed in memory: its arena (owned: deallocated with this object) and the
    /// records' offsets in key order.
    private let arena: UnsafeMutableRawBufferPointer
    private let order: [Int]
    private var position = 0
    private let cursors: [RunCursor]
    /// Cursors by their current key (a binary min-heap of indices into `cursors`).
    private var heap: [Int] = []
    private var started = false

    fileprivate init(arena: UnsafeMutableRawBufferPointer, order: [Int]) {
        self.arena = arena
        self.order = order
        cursors = []
    }

    fileprivate init(cursors: [RunCursor]) throws {
        arena = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        order = []
        self.cursors = cursors
    }

    deinit { arena.deallocate() }

    /// Records ahead of the one returned whose bytes are asked for (``csystem_prefetch(_:)``).
    static let prefetchDistance = 8

    /// The next record, or nil after the last. Its bytes stay valid until the next call.
    func next() throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        if cursors.isEmpty {
            guard position < order.count else { return nil }
            let start = order[position]
            // Records are read in key order, at random places of the arena: a cache (and TLB)
            // miss each, which the load of one a few steps ahead overlaps.
            if position + Self.prefetchDistance < order.count {
                csystem_prefetch(arena.baseAddress! + order[position + Self.prefetchDistance])
            }
            position += 1
            let keyLength = Int(arena.loadUnaligned(fromByteOffset: start, as: UInt32.self).littleEndian)
            let valueLength = Int(arena.loadUnaligned(fromByteOffset: start + 4, as: UInt32.self).littleEndian)
            let base = UnsafeRawPointer(arena.baseAddress!) + start + 8
            return (UnsafeRawBufferPointer(start: base, count: keyLength), UnsafeRawBufferPointer(start: base + keyLength, count: valueLength))
        }
        if !started {
            started = true
            for index in cursors.indices where try cursors[index].advance() { push(index) }
        } else if let top = heap.first {
            // The record returned last is consumed only now, so that its bytes lived until this call.
            if try cursors[top].advance() { siftDown(0) } else { removeTop() }
        }
        guard let top = heap.first else { return nil }
        return (cursors[top].key, cursors[top].value)
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        let order = compareBytes(cursors[a].key.bindMemory(to: UInt8.self), cursors[b].key.bindMemory(to: UInt8.self))
        return order != 0 ? order < 0 : a < b
    }

    private func push(_ index: Int) {
        heap.append(index)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func removeTop() {
        heap[0] = heap[heap.count - 1]
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < heap.count, precedes(heap[left], heap[least]) { least = left }
            if right < heap.count, precedes(heap[right], heap[least]) { least = right }
            guard least != parent else { return }
            heap.swapAt(parent, least)
            parent = least
        }
    }
}

/// Reads one run of an ``ExternalSorter`` record by record through a buffer.
private final class RunCursor {
    private let file: SpillFile
    private var buffer: UnsafeMutableRawBufferPointer
    /// Valid bytes are `buffer[start..<end]`; the current record begins at `start`.
    private var start = 0
    private var end = 0
    private var current = 0
    private var endOfFile = false
    private(set) var key = UnsafeRawBufferPointer(start: nil, count: 0)
    private(set) var value = UnsafeRawBufferPointer(start: nil, count: 0)

    init(file: SpillFile, capacity: Int) throws {
        self.file = file
        buffer = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { buffer.deallocate() }

    /// Moves to the next record; false at the end of the run.
    func advance() throws -> Bool {
        start += current
        current = 0
        guard try available(8) else { return false }
        let keyLength = Int(buffer.loadUnaligned(fromByteOffset: start, as: UInt32.self).littleEndian)
        let valueLength = Int(buffer.loadUnaligned(fromByteOffset: start + 4, as: UInt32.self).littleEndian)
        current = 8 + keyLength + valueLength
        guard try available(current) else {
            throw IndexError(.internal, "the build's spill file \(file.path) ends inside a record")
        }
        let base = UnsafeRawPointer(buffer.baseAddress!) + start + 8
        key = UnsafeRawBufferPointer(start: base, count: keyLength)
        value = UnsafeRawBufferPointer(start: base + keyLength, count: valueLength)
        return true
    }

    /// Whether `count` bytes from `start` are (or could be read into) the buffer; compacts and
    /// grows it as needed.
    private func available(_ count: Int) throws -> Bool {
        while end - start < count {
            if endOfFile { return false }
            if start > 0 {
                buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: end - start)
                end -= start
                start = 0
            }
            if count > buffer.count {
                let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
                grown.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: end)
                buffer.deallocate()
                buffer = grown
            }
            let read = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
            if read == 0 { endOfFile = true } else { end += read }
        }
        return true
    }
}
