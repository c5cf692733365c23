/// A message type generated from `proto/` by `scripts/protogen.py`.
///
/// ```swift
/// let request = Typeahead_V1_SuggestRequest(text: "red sh", revision: 7)
/// let bytes = request.serializedBytes()
/// let back = try Typeahead_V1_SuggestRequest(serializedBytes: bytes)   // == request
/// ```
///
/// Implementation requirements (generated code meets them): `encode(to:)` writes fields in field
/// number order, skips fields that hold their proto3 default (unless declared `optional` and set),
/// and writes `unknownFields` last; `init(decoding:)` reads until the reader's current message ends,
/// keeps the last value of a repeated-in-the-input singular field (proto3 "last one wins"), and
/// hands unknown fields to `ProtoReader.skip(_:preserving:)`.
public protocol ProtoMessage: ProtoDecodable, Sendable, Hashable {
    /// The fully qualified proto name, e.g. `typeahead.v1.SuggestRequest`.
    static var protoMessageName: String { get }
    /// Fields this version of the schema does not know, as their encoded bytes (re-sent by
    /// `encode(to:)`, so a message passes through an older node unchanged).
    var unknownFields: ProtoUnknownFields { get set }
    /// A message with every field at its default.
    init()
    func encode(to writer: inout ProtoWriter)
}

/// What reads a message from a ``ProtoReader``: a generated message, or a view that leaves the
/// message's strings in the received bytes (``RankKeyView``, ``RankedEntryView``…). Either is read
/// as a field with ``ProtoReader/readMessage(_:_:as:)``.
public protocol ProtoDecodable {
    /// Reads until the reader's current message ends; a singular field seen twice keeps its last
    /// value (proto3 "last one wins").
    init(decoding reader: inout ProtoReader) throws(ProtoError)
}

extension ProtoMessage {
    /// The binary encoding. Deterministic: map entries are written sorted by key.
    public func serializedBytes() -> [UInt8] {
        var writer = ProtoWriter()
        encode(to: &writer)
        return writer.bytes
    }

    /// Decodes the binary encoding; `maximumDepth` bounds message nesting (the top level is 0).
    public init(serializedBytes bytes: [UInt8], maximumDepth: Int = ProtoReader.defaultMaximumDepth) throws(ProtoError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(ProtoError) -> Self in try Self(serializedBuffer: buffer, maximumDepth: maximumDepth) }
        }
        self = try result.get()
    }

    /// Decodes from memory the caller keeps alive for the duration of the call (no copy is made;
    /// strings and byte fields are copied out).
    public init(serializedBuffer buffer: UnsafeRawBufferPointer, maximumDepth: Int = ProtoReader.defaultMaximumDepth) throws(ProtoError) {
        var reader = ProtoReader(buffer, maximumDepth: maximumDepth)
        self = try Self(decoding: &reader)
    }
}

/// A proto3 enum: open, so values this schema does not know are kept (`unrecognized`) and re-sent.
///
/// Equality and hashing are by `rawValue`, so `.unrecognized(1)` equals the case whose value is 1.
public protocol ProtoEnum: Sendable, Hashable {
    init(rawValue: Int32)
    var rawValue: Int32 { get }
}

/// The encoded bytes (tag and value) of fields a message's schema does not declare, in the order
/// they arrived.
public struct ProtoUnknownFields: Sendable, Hashable {
    public internal(set) var bytes: [UInt8]
    public init() { bytes = [] }
    public var isEmpty: Bool { bytes.isEmpty }
}

/// The low three bits of a field's key: how its value is laid out.
public enum ProtoWireType: UInt8, Sendable, Hashable, CustomStringConvertible {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5

    public var description: String {
        switch self {
        case .varint: "0 (varint)"
        case .fixed64: "1 (64-bit)"
        case .lengthDelimited: "2 (length-delimited)"
        case .startGroup: "3 (start group)"
        case .endGroup: "4 (end group)"
        case .fixed32: "5 (32-bit)"
        }
    }
}

/// A field's key as read from the input.
public struct ProtoTag: Sendable, Hashable {
    /// 1 ... 2^29 − 1.
    public var number: Int
    public var wireType: ProtoWireType
}

/// One RPC of a service declared in `proto/`: what a transport needs to route and (de)serialize it.
public struct ProtoMethod<Request: ProtoMessage, Response: ProtoMessage>: Sendable, Hashable {
    /// The HTTP/2 `:path` of the call, `/package.Service/Method`.
    public let path: String
    /// The client sends a stream of requests.
    public let clientStreaming: Bool
    /// The server answers with a stream of responses.
    public let serverStreaming: Bool

    public init(path: String, clientStreaming: Bool, serverStreaming: Bool) {
        self.path = path
        self.clientStreaming = clientStreaming
        self.serverStreaming = serverStreaming
    }
}
