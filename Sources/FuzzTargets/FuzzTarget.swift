import Catalog
import Foundation
import HTTP2
import Index
import Wire
import WireConversions

/// The parsers a node or coordinator runs on bytes it did not write, as fuzz targets: each
/// ``run(_:)`` takes arbitrary bytes and must return, whatever they are (errors are the expected
/// outcome; a trap, an out-of-bounds access or a leak is a finding).
///
/// Built twice: here, in the package, so that `FuzzTargetTests` replays the corpus in
/// `Tests/Fuzz/<target>/` (seeds and every crasher found) on every test run; and in the fuzz
/// package (`Fuzz/`), linked with libFuzzer and the address sanitizer by `scripts/fuzz.sh`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Every protobuf message a node or coordinator decodes from a peer: client and shard
    /// requests, and a shard's answers as the coordinator reads them for merging.
    case protobuf
    /// A Suggest or Search request body in JSON (yajl with the API's limits, then the mapping).
    case requestJSON = "request-json"
    /// One line of a JSON Lines catalog.
    case catalogLine = "catalog-line"
    /// HTTP/1.1 requests, as a connection reads them.
    case http1
    /// A search page token sent back by a client.
    case pageToken = "page-token"
    /// An HTTP/2 server session fed a connection's bytes after the preface.
    case http2

    public func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .protobuf: Self.protobuf(Array(bytes))
        case .requestJSON: Self.requestJSON(Array(bytes))
        case .catalogLine: _ = parseCatalogLine(bytes, line: 1)
        case .http1: HTTP2Fuzzing.http1Requests(bytes)
        case .pageToken: IndexFuzzing.pageToken(bytes)
        case .http2: HTTP2Fuzzing.http2ServerSession(bytes)
        }
    }

    private static func protobuf(_ bytes: [UInt8]) {
        // The first byte picks the message, so one corpus covers them all.
        guard let selector = bytes.first else { return }
        let body = Array(bytes.dropFirst())
        switch selector % 8 {
        case 0:
            if let message = try? Typeahead_V1_SuggestRequest(serializedBytes: body) { _ = try? SuggestRequest(message) }
        case 1:
            if let message = try? Typeahead_V1_SearchRequest(serializedBytes: body) { _ = try? SearchRequest(message) }
        case 2: _ = try? Typeahead_V1_UpsertRequest(serializedBytes: body)
        case 3: _ = try? Typeahead_V1_AppendUploadRequest(serializedBytes: body)
        case 4: _ = try? Typeahead_V1_ShardSuggestRequest(serializedBytes: body)
        case 5:
            if let view = try? ShardSuggestResponseView(body) { withExtendedLifetime(view) { touch(view.entries) } }
        case 6:
            if let view = try? ShardSearchResponseView(body) { withExtendedLifetime(view) { touch(view.hits) } }
        default:
            _ = try? GRPCFraming.messages(in: body, maximumMessageBytes: 1 << 20)
        }
    }

    /// Reads every field of decoded hits, as a merge and the response encoders do.
    private static func touch(_ entries: [RankedEntryView]) {
        var checksum = 0
        for entry in entries {
            guard let hit = entry.hit else { continue }
            hit.withID { checksum &+= $0.count }
            hit.withTitle { checksum &+= $0.count }
            hit.forEachCategory { checksum &+= $0.count }
            hit.forEachAttribute { key, value in checksum &+= key.count &+ value.count }
            hit.forEachHighlight { start, end in checksum &+= Int(start) &+ Int(end) }
        }
        _ = checksum
    }

    private static func requestJSON(_ bytes: [UInt8]) {
        guard let object = try? JSONRequests.object(bytes) else { return }
        if let message = try? JSONRequests.suggest(object) { _ = try? SuggestRequest(message) }
        if let message = try? JSONRequests.search(object) { _ = try? SearchRequest(message) }
    }
}
