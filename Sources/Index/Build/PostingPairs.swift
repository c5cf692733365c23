/// A build's (term, document) pairs, gathered in document order and given back grouped by term, in
/// term order, within a memory budget.
///
/// The build knows every term and how many pairs each has before the first pair arrives (it counted
/// them while analysing), so the terms are cut into buckets of consecutive terms holding at most
/// `budget / 16` pairs each (a term with more has a bucket of its own). With one bucket the pairs
/// stay in memory; with more, each bucket is a ``SpillFile`` of 8-byte pairs, and ``next()``
/// loads one bucket at a time and groups it by a stable counting sort: a distribution sort, each
/// pair written and read once. Stable, so each term's documents come out as they went in:
/// ascending, repeats kept (a word twice in a document), as ``PostingList`` wants them.
///
/// A pair is `term << 32 | flag << 31 | document`: documents are below 2^31 (a shard holds at most
/// `UInt32.max / 2` entries), and the flag marks a description posting.
///
/// Memory: 16 bytes a pair of the biggest bucket while it is grouped, and a megabyte of write buffer
/// per bucket while pairs arrive. Complexity: O(pairs + terms).
struct PostingPairs: ~Copyable {
    /// The first term of each bucket, and past the last one the number of terms.
    private let boundaries: [Int]
    private var memory: [UInt64] = []
    private var files: [SpillFile] = []
    /// The bucket of each term.
    private let bucketOf: [UInt32]
    private(set) var count = 0
    /// What ``next()`` gives: the documents of the term it returned.
    private(set) var name: [UInt32] = []
    private(set) var description: [UInt32] = []
    private var term = 0
    private var bucket = 0
    private var loaded = false
    private var grouped: [UInt64] = []
    private var starts: [Int] = []

    /// - Parameter counts: the pairs each term (by number, in term order) will receive.
    init(counts: [Int], budget: Int, directory: String) throws {
        let perBucket = max(1 << 10, budget / 16)
        var boundaries = [0]
        var bucketOf = [UInt32](repeating: 0, count: counts.count)
        var inBucket = 0
        for (term, count) in counts.enumerated() {
            if inBucket > 0, inBucket + count > perBucket {
                boundaries.append(term)
                inBucket = 0
            }
            inBucket += count
            bucketOf[term] = UInt32(boundaries.count - 1)
        }
        boundaries.append(counts.count)
        self.boundaries = boundaries
        self.bucketOf = bucketOf
        if boundaries.count > 2 {
            for bucket in 0..<(boundaries.count - 1) {
                files.append(try SpillFile(creating: "\(directory)/postings-\(bucket).pairs"))
            }
        } else {
            memory.reserveCapacity(counts.reduce(0, +))
        }
    }

    /// Buckets the terms were cut into.
    var buckets: Int { boundaries.count - 1 }
    /// Files the pairs go to (none when they stay in memory).
    var spillFiles: Int { files.count }

    /// Adds a pair; documents must come in ascending order (repeats allowed).
    mutating func append(term: Int, document: UInt32, description: Bool) throws {
        let pair = UInt64(term) << 32 | (description ? 1 << 31 : 0) | UInt64(document)
        count += 1
        if files.isEmpty {
            memory.append(pair)
        } else {
            try withUnsafeBytes(of: pair.littleEndian) { bytes throws in try files[Int(bucketOf[term])].append(bytes) }
        }
    }

    /// The next term's number (terms come in order, every one of them, pairs or not), its name
    /// documents in `name` and its description documents in `description` (each ascending, as
    /// appended); nil after the last.
    mutating func next() throws -> Int? {
        guard term < boundaries[buckets] else { return nil }
        if term == boundaries[bucket + 1] || !loaded {
            if loaded { bucket += 1 }
            try load(bucket)
        }
        let first = boundaries[bucket]
        name.removeAll(keepingCapacity: true)
        description.removeAll(keepingCapacity: true)
        for pair in grouped[starts[term - first]..<starts[term - first + 1]] {
            let document = UInt32(truncatingIfNeeded: pair) & 0x7FFF_FFFF
            if pair & (1 << 31) != 0 { description.append(document) } else { name.append(document) }
        }
        term += 1
        return term - 1
    }

    /// Groups bucket `bucket` by a stable counting sort by term.
    private mutating func load(_ bucket: Int) throws {
        loaded = true
        let first = boundaries[bucket], end = boundaries[bucket + 1]
        var pairs: [UInt64]
        if files.isEmpty {
            pairs = memory
            memory = []
        } else {
            pairs = try Self.read(files[bucket])
        }
        starts = [Int](repeating: 0, count: end - first + 1)
        for pair in pairs { starts[Int(pair >> 32) - first + 1] += 1 }
        for index in 0..<(end - first) { starts[index + 1] += starts[index] }
        var next = starts
        grouped = []
        grouped = [UInt64](unsafeUninitializedCapacity: pairs.count) { buffer, initialized in
            for pair in pairs {
                let slot = Int(pair >> 32) - first
                buffer[next[slot]] = pair
                next[slot] += 1
            }
            initialized = pairs.count
        }
    }

    private static func read(_ file: SpillFile) throws -> [UInt64] {
        try file.finishWriting()
        let count = file.size / 8
        return try [UInt64](unsafeUninitializedCapacity: count) { buffer, initialized throws in
            let bytes = UnsafeMutableRawBufferPointer(buffer)
            var filled = 0
            while filled < count * 8 {
                let read = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled..<(count * 8)]))
                if read == 0 { throw IndexError(.internal, "the build's spill file \(file.path) is shorter than written") }
                filled += read
            }
            // Written little-endian, the machine's order (the file never leaves this build).
            initialized = count
        }
    }
}
