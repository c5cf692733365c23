/// Why bytes could not be decoded as a protobuf message.
///
/// `message` names the field where decoding stopped, as a path from the outermost message, and says
/// what was wrong in terms of the input:
///
/// ```
/// field 3 (limits): length 900 runs past the end of the message (40 bytes left)
/// field 1 (entries) > field 7 (highlights) > field 1 (start): varint is longer than 10 bytes
/// ```
///
/// Every case means the peer sent malformed input: a server answers INVALID_ARGUMENT with
/// `message`. Kinds are a struct over a private enum so that kinds can be added without breaking
/// code that switches over them (compare with `==`).
public struct ProtoError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case truncated, varintTooLong, lengthPastEnd, invalidUTF8, tooDeep
            case wireTypeMismatch, groupNotSupported, invalidTag
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The input ends inside a value (a varint, a fixed-width number, a packed run).
        public static let truncated = Kind(.truncated)
        /// A varint has more than 10 bytes, the most a 64-bit value takes.
        public static let varintTooLong = Kind(.varintTooLong)
        /// A length prefix points past the end of the enclosing message.
        public static let lengthPastEnd = Kind(.lengthPastEnd)
        /// A `string` field holds bytes that are not UTF-8.
        public static let invalidUTF8 = Kind(.invalidUTF8)
        /// Messages are nested deeper than the reader allows.
        public static let tooDeep = Kind(.tooDeep)
        /// A known field arrived with a wire type its declared type cannot have.
        public static let wireTypeMismatch = Kind(.wireTypeMismatch)
        /// Wire type 3 or 4 (proto2 groups), which proto3 schemas never produce.
        public static let groupNotSupported = Kind(.groupNotSupported)
        /// Field number 0 or above 2^29 − 1, or wire type 6 or 7.
        public static let invalidTag = Kind(.invalidTag)

        public var description: String { value.rawValue }
    }

    public let kind: Kind
    /// Fields from the outermost message down to the failing one, e.g.
    /// `field 1 (entries) > field 7 (highlights)`; empty when the failure is not inside a field.
    public private(set) var fieldPath: String
    /// What was wrong, without the field path.
    public let detail: String
    /// Byte offset in the decoded buffer where the problem was found.
    public let offset: Int

    public init(_ kind: Kind, fieldPath: String = "", detail: String, offset: Int) {
        self.kind = kind
        self.fieldPath = fieldPath
        self.detail = detail
        self.offset = offset
    }

    /// The whole explanation: `fieldPath: detail`.
    public var message: String { fieldPath.isEmpty ? detail : "\(fieldPath): \(detail)" }
    public var description: String { message }

    /// The same error seen from the enclosing message: `field N (name) > ` is put in front.
    func inField(_ number: Int, _ name: StaticString) -> ProtoError {
        var copy = self
        let outer = ProtoError.describe(number, name)
        copy.fieldPath = fieldPath.isEmpty ? outer : "\(outer) > \(fieldPath)"
        return copy
    }

    static func describe(_ number: Int, _ name: StaticString?) -> String {
        guard let name else { return "field \(number)" }
        return "field \(number) (\(name))"
    }
}
