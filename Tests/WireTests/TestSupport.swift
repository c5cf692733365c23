import Foundation
import Wire

/// The repository's root (this file is Tests/WireTests/TestSupport.swift).
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// Bytes from hex digits; spaces and `// comments` are ignored so that vectors can be annotated by field.
func bytes(_ hexDigits: String) -> [UInt8] {
    let code = hexDigits.split(separator: "\n").map { $0.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
    let digits = Array(code.joined().filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// A deterministic generator (SplitMix64), so that a failing random case can be replayed by seed.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random field values biased towards the edges of the encoding: zero, varint length boundaries,
/// extremes, empty and multi-byte strings.
struct Randomizer {
    var rng: SeededRandom
    /// Maps get at most one entry, so that any two encoders must produce the same bytes (protobuf
    /// leaves the order of map entries open, and libraries differ).
    var singleEntryMaps = false

    init(seed: UInt64) { rng = SeededRandom(seed: seed) }

    mutating func bool() -> Bool { Bool.random(using: &rng) }
    mutating func count(_ maximum: Int = 3) -> Int { Int.random(in: 0...maximum, using: &rng) }

    mutating func uint64() -> UInt64 {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return 0
        case 1: return [1, 127, 128, 16_383, 16_384, UInt64(UInt32.max), UInt64.max][Int.random(in: 0..<7, using: &rng)]
        case 2: return UInt64.random(in: 0..<128, using: &rng)
        case 3: return UInt64.random(in: 0..<(1 << 53), using: &rng)
        default: return UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64.random(in: 0..<64, using: &rng)
        }
    }
    mutating func uint32() -> UInt32 { UInt32(truncatingIfNeeded: uint64()) }
    mutating func int64() -> Int64 { Int64(bitPattern: uint64()) }
    mutating func int32() -> Int32 { Int32(truncatingIfNeeded: uint64()) }
    mutating func weight() -> UInt64 { UInt64.random(in: 0..<(1 << 53), using: &rng) }
    mutating func double() -> Double {
        [0, -0.0, 1.5, -2.25e300, .infinity, -.infinity, .leastNonzeroMagnitude, Double(int32())][Int.random(in: 0..<8, using: &rng)]
    }
    mutating func float() -> Float { Float(double()) }

    mutating func string() -> String {
        let pieces = ["", "a", "red", " ", "Zürich", "東京", "🙂", "\u{0}", "é", "\"\\", "Straße", String(repeating: "x", count: 130)]
        var out = ""
        for _ in 0..<count(3) { out += pieces[Int.random(in: 0..<pieces.count, using: &rng)] }
        return out
    }
    mutating func bytes() -> [UInt8] { (0..<count(5)).map { _ in UInt8.random(in: 0...255, using: &rng) } }
    mutating func maybe<T>(_ make: (inout Randomizer) -> T) -> T? { bool() ? make(&self) : nil }
    mutating func array<T>(_ maximum: Int = 3, _ make: (inout Randomizer) -> T) -> [T] {
        (0..<count(maximum)).map { _ in make(&self) }
    }
    mutating func map<K: Hashable, V>(_ key: (inout Randomizer) -> K, _ value: (inout Randomizer) -> V) -> [K: V] {
        var out: [K: V] = [:]
        for _ in 0..<count(singleEntryMaps ? 1 : 4) { out[key(&self)] = value(&self) }
        return out
    }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &rng)] }

    // MARK: API messages

    mutating func token() -> Typeahead_V1_SearchToken { .init(kind: pick(["category", "", "color"]), value: string()) }
    mutating func typos() -> Typeahead_V1_Typos { pick([.unspecified, .auto, .off, .unrecognized(7)]) }
    mutating func rankKey() -> Typeahead_V1_RankKey {
        .init(typos: uint32(), field: uint32(), startsWith: bool(), weight: weight(), sortTitle: string(), id: string())
    }
    mutating func suggestRequest() -> Typeahead_V1_SuggestRequest {
        .init(text: string(), tokens: array { $0.token() },
              limits: maybe { .init(entries: $0.maybe { $0.uint32() }, categories: $0.maybe { $0.uint32() },
                                    completions: $0.maybe { $0.uint32() }) },
              typos: typos(), dedupe: maybe { $0.bool() }, session: string(), revision: uint64())
    }
    mutating func searchRequest() -> Typeahead_V1_SearchRequest {
        .init(text: string(), tokens: array { $0.token() }, pageSize: uint32(), pageToken: string(),
              sort: pick([.unspecified, .relevance, .weight, .unrecognized(-1)]), facets: maybe { $0.bool() }, typos: typos())
    }
    mutating func entryHit() -> Typeahead_V1_EntryHit {
        .init(id: string(), title: string(), categories: array { $0.string() }, weight: weight(),
              attributes: map({ $0.string() }, { $0.string() }), completion: string(),
              highlights: array { .init(start: $0.uint32(), end: $0.uint32()) })
    }
    mutating func shards() -> Typeahead_V1_ShardStatus? {
        maybe { .init(total: $0.uint32(), succeeded: $0.uint32(), failed: $0.uint32(), failedShards: $0.array { $0.string() }) }
    }
    mutating func suggestResponse() -> Typeahead_V1_SuggestResponse {
        .init(entries: array { $0.entryHit() },
              categories: array { .init(name: $0.string(), count: $0.uint32(), token: $0.maybe { $0.token() }, replacementText: $0.string()) },
              completions: array { .init(text: $0.string()) }, session: string(), revision: uint64(), shards: shards())
    }
    mutating func searchResponse() -> Typeahead_V1_SearchResponse {
        .init(hits: array { $0.entryHit() }, totalHits: uint32(),
              facets: array { .init(name: $0.string(), count: $0.uint32()) }, nextPageToken: string(), shards: shards())
    }
    mutating func shardSuggestResponse() -> Typeahead_V1_ShardSuggestResponse {
        .init(entries: array { .init(hit: $0.maybe { $0.entryHit() }, rank: $0.maybe { $0.rankKey() }) },
              categories: array { .init(suggestion: .init(name: $0.string(), count: $0.uint32(), token: $0.token(),
                                                          replacementText: $0.string()), typos: $0.uint32()) },
              completions: array { .init(text: $0.string(), term: $0.string(), typos: $0.uint32(), best: $0.maybe { $0.rankKey() }) },
              generation: uint64())
    }
    mutating func shardSearchResponse() -> Typeahead_V1_ShardSearchResponse {
        .init(hits: array { .init(hit: $0.entryHit(), rank: $0.rankKey()) }, totalHits: uint32(),
              facets: array { .init(name: $0.string(), count: $0.uint32()) }, nextPageToken: string(), generation: uint64())
    }
    mutating func entry() -> Typeahead_V1_Entry {
        .init(id: string(), title: string(), categories: array { $0.string() }, weight: weight(), aliases: array { $0.string() },
              description: maybe { $0.string() }, attributes: map({ $0.string() }, { $0.string() }))
    }
    mutating func generationInfo() -> Typeahead_V1_GenerationInfo {
        .init(number: uint64(), state: pick([.unspecified, .current, .previous, .staged, .unrecognized(9)]),
              entries: uint64(), bytes: uint64(),
              build: maybe { .init(entries: $0.uint64(), terms: $0.uint64(), heavyNodes: $0.uint64(), postings: $0.uint64(), bytes: $0.uint64()) })
    }

    /// One random message of each API type (and the coverage fixture's), for round trips.
    mutating func apiMessages() -> [any ProtoMessage] {
        [
            suggestRequest(), searchRequest(), suggestResponse(), searchResponse(),
            Typeahead_V1_ShardSuggestRequest(request: maybe { $0.suggestRequest() }, generation: uint64()),
            Typeahead_V1_ShardSearchRequest(request: maybe { $0.searchRequest() }, generation: uint64()),
            shardSuggestResponse(), shardSearchResponse(),
            Typeahead_V1_UpsertRequest(entries: array { $0.entry() }),
            Typeahead_V1_UpsertResponse(summary: .init(inserted: uint32(), replaced: uint32(), deleted: uint32(), missing: uint32()), generation: uint64()),
            Typeahead_V1_DeleteRequest(ids: array { $0.string() }),
            Typeahead_V1_BuildGenerationRequest(parameters: maybe { .init(listSize: $0.uint32(), heavyThreshold: $0.uint32()) }, entries: array { $0.entry() }),
            Typeahead_V1_BuildGenerationResponse(generation: generationInfo()),
            Typeahead_V1_ActivateGenerationRequest(generation: uint64()),
            Typeahead_V1_StatsResponse(shard: string(), currentGeneration: uint64(), entries: uint64(), generations: array { $0.generationInfo() }),
            Typeahead_V1_RollbackRequest(),
            Grpc_Health_V1_HealthCheckRequest(service: string()),
            Grpc_Health_V1_HealthCheckResponse(status: pick([.unknown, .serving, .notServing, .serviceUnknown, .unrecognized(42)])),
            scalars(), composite(depth: 2),
        ]
    }

    // MARK: Coverage fixture

    mutating func color() -> Wiretest_V1_Color { pick([.unspecified, .red, .green, .negative, .unrecognized(-100), .unrecognized(1000)]) }

    mutating func scalars() -> Wiretest_V1_Scalars {
        var m = Wiretest_V1_Scalars()
        m.fDouble = double(); m.fFloat = float(); m.fInt32 = int32(); m.fInt64 = int64()
        m.fUint32 = uint32(); m.fUint64 = uint64(); m.fSint32 = int32(); m.fSint64 = int64()
        m.fFixed32 = uint32(); m.fFixed64 = uint64(); m.fSfixed32 = int32(); m.fSfixed64 = int64()
        m.fBool = bool(); m.fString = string(); m.fBytes = bytes()
        m.oDouble = maybe { $0.double() }; m.oInt32 = maybe { $0.int32() }; m.oUint64 = maybe { $0.uint64() }
        m.oSint64 = maybe { $0.int64() }; m.oBool = maybe { $0.bool() }; m.oString = maybe { $0.string() }
        m.oBytes = maybe { $0.bytes() }; m.oColor = maybe { $0.color() }
        m.rDouble = array { $0.double() }; m.rFloat = array { $0.float() }; m.rInt32 = array { $0.int32() }
        m.rInt64 = array { $0.int64() }; m.rUint32 = array { $0.uint32() }; m.rUint64 = array { $0.uint64() }
        m.rSint32 = array { $0.int32() }; m.rSint64 = array { $0.int64() }; m.rFixed32 = array { $0.uint32() }
        m.rFixed64 = array { $0.uint64() }; m.rSfixed32 = array { $0.int32() }; m.rSfixed64 = array { $0.int64() }
        m.rBool = array { $0.bool() }; m.rString = array { $0.string() }; m.rBytes = array { $0.bytes() }
        m.rColor = array { $0.color() }; m.rUnpacked = array { $0.int32() }
        return m
    }

    mutating func inner(depth: Int) -> Wiretest_V1_Composite.Inner {
        .init(label: string(), children: depth > 0 ? array(2) { $0.inner(depth: depth - 1) } : [],
              mode: pick([.unspecified, .fast, .safe, .unrecognized(5)]))
    }

    mutating func composite(depth: Int) -> Wiretest_V1_Composite {
        .init(inner: maybe { $0.inner(depth: depth) }, inners: array(2) { $0.inner(depth: depth) },
              mode: pick([.unspecified, .fast, .safe]), color: color(),
              labels: map({ $0.string() }, { $0.string() }), byNumber: map({ $0.int32() }, { $0.inner(depth: 0) }),
              colors: map({ $0.string() }, { $0.color() }), blobs: map({ $0.uint64() }, { $0.bytes() }),
              shared: maybe { .init(note: $0.string()) }, scalars: maybe { $0.scalars() }, default: string(),
              key: uint32(), value: uint32(), empty: maybe { _ in Wiretest_V1_Empty() }, last: int64())
    }
}

/// Encodes any message (opening the existential).
func encode(_ message: any ProtoMessage) -> [UInt8] { message.serializedBytes() }

/// Encodes, decodes and encodes again.
func reencode<M: ProtoMessage>(_ message: M) throws -> [UInt8] {
    try M(serializedBytes: message.serializedBytes()).serializedBytes()
}

/// Decodes `bytes` as `type` and encodes the result.
func reencode<M: ProtoMessage>(_ type: M.Type, _ bytes: [UInt8]) throws -> [UInt8] {
    try M(serializedBytes: bytes).serializedBytes()
}

/// Decodes bytes as the type of `example` and tells whether the result equals `example`.
func decodesEqual<M: ProtoMessage>(_ example: M, _ bytes: [UInt8]) throws -> Bool {
    try M(serializedBytes: bytes) == example
}

/// Every message type the tests know, by proto name.
let messageTypesByName: [String: any ProtoMessage.Type] = {
    var types: [String: any ProtoMessage.Type] = [:]
    for type in Typeahead_V1_TypeaheadProto.messageTypes + Typeahead_V1_ShardProto.messageTypes
        + Grpc_Health_V1_HealthProto.messageTypes + Wiretest_V1_CoverageProto.messageTypes + Wiretest_V1_Common_V1_CommonProto.messageTypes {
        types[type.protoMessageName] = type
    }
    return types
}()
