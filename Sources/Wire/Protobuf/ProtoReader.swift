/// Reads the protobuf binary encoding from a span of memory with an index, field by field.
///
/// The reader never copies the input: it walks `buffer` with `position` and the `end` of the
/// message being read (a nested message narrows `end`, then restores it). Every length is checked
/// against `end` before use, so no input can make it read outside the span. Generated
/// `init(decoding:)` code drives it:
///
/// ```swift
/// while let tag = try reader.nextTag() {
///     switch tag.number {
///     case 1: text = try reader.read(ProtoString.self, tag, "text")
///     default: try reader.skip(tag, preserving: &unknownFields)
///     }
/// }
/// ```
///
/// Strictness (each a `ProtoError`): varints of more than 10 bytes, lengths and fixed-width values
/// past the end of the enclosing message, field number 0 or above 2^29 − 1, wire types 3, 4
/// (groups), 6 and 7, a known field with a wire type its type cannot have, invalid UTF-8 in a
/// `string`, and nesting deeper than `maximumDepth`. Lenient where the spec says so: a singular
/// field seen twice keeps the last value; repeated numeric fields are accepted packed and unpacked;
/// unknown fields are skipped (their content is not examined).
///
/// The buffer must stay valid while the reader is used: create the reader inside
/// `withUnsafeBytes` (as `ProtoMessage.init(serializedBytes:)` does) and let it go before leaving.
public struct ProtoReader {
    /// Enough for every message of our schemas (they nest at most 4 deep) with room for growth,
    /// and small enough that hostile input cannot exhaust the stack.
    public static let defaultMaximumDepth = 32

    private let buffer: UnsafeRawBufferPointer
    /// The next byte to read.
    public private(set) var position: Int
    /// One past the last byte of the message being read.
    private var end: Int
    /// Messages entered below the top level.
    private var depth = 0
    private let maximumDepth: Int
    /// Where the key of the field being read starts (unknown fields are copied from here).
    private var fieldStart = 0

    public init(_ buffer: UnsafeRawBufferPointer, maximumDepth: Int = defaultMaximumDepth) {
        self.buffer = buffer
        self.position = 0
        self.end = buffer.count
        self.maximumDepth = maximumDepth
    }

    /// A reader of the message in `range` of `buffer` (a field's content read before), whose
    /// positions stay those of `buffer`.
    public init(_ buffer: UnsafeRawBufferPointer, range: Range<Int>, maximumDepth: Int = defaultMaximumDepth) {
        precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "range outside the buffer")
        self.buffer = buffer
        self.position = range.lowerBound
        self.end = range.upperBound
        self.maximumDepth = maximumDepth
    }

    /// The key of the next field of the current message, or nil at its end.
    ///
    /// Inlined, with the one-byte key (fields 1 to 15 of a valid wire type: every key of our
    /// schemas) decided here and anything else out of line: a coordinator reads about a thousand
    /// keys per call from its shards' answers.
    @inline(__always)
    public mutating func nextTag() throws(ProtoError) -> ProtoTag? {
        guard position < end else { return nil }
        let key = buffer[position]
        // Field number 1...15 (key 0x08...0x7F) and wire type 0, 1, 2 or 5.
        let wireType: ProtoWireType? = switch key & 7 {
        case 0: .varint
        case 1: .fixed64
        case 2: .lengthDelimited
        case 5: .fixed32
        default: nil  // groups, and the wire types that do not exist
        }
        if key >= 0x08, key < 0x80, let wireType {
            fieldStart = position
            position += 1
            return ProtoTag(number: Int(key >> 3), wireType: wireType)
        }
        return try nextTagSlowly()
    }

    @inline(never)
    private mutating func nextTagSlowly() throws(ProtoError) -> ProtoTag {
        fieldStart = position
        let key = try readVarint(0, nil)
        let number = key >> 3
        guard number >= 1, number <= (1 << 29) - 1 else {
            throw ProtoError(.invalidTag, detail: "field number \(number) at byte \(fieldStart) is outside 1...536870911", offset: fieldStart)
        }
        let raw = UInt8(key & 7)
        guard let wireType = ProtoWireType(rawValue: raw) else {
            throw ProtoError(.invalidTag, fieldPath: ProtoError.describe(Int(number), nil),
                             detail: "wire type \(raw) does not exist", offset: fieldStart)
        }
        if wireType == .startGroup || wireType == .endGroup {
            throw ProtoError(.groupNotSupported, fieldPath: ProtoError.describe(Int(number), nil),
                             detail: "wire type \(wireType) is a proto2 group, which this API does not use", offset: fieldStart)
        }
        return ProtoTag(number: Int(number), wireType: wireType)
    }

    // MARK: Fields (generated code calls these)

    /// One value of a singular scalar field.
    @inline(__always)
    public mutating func read<T: ProtoScalarType>(_ type: T.Type, _ tag: ProtoTag, _ name: StaticString) throws(ProtoError) -> T.Value {
        try expect(tag, T.wireType, name)
        return try T.read(from: &self, tag.number, name)
    }

    /// Appends a repeated scalar field's values: a packed run, or one unpacked element.
    public mutating func readRepeated<T: ProtoScalarType>(_ type: T.Type, _ tag: ProtoTag, _ name: StaticString,
                                                          into values: inout [T.Value]) throws(ProtoError) {
        if tag.wireType == .lengthDelimited && T.wireType != .lengthDelimited {
            let run = try readLength(tag.number, name)
            let outer = end
            position = run.lowerBound
            end = run.upperBound
            defer { end = outer }
            while position < end { values.append(try T.read(from: &self, tag.number, name)) }
            return
        }
        values.append(try read(type, tag, name))
    }

    /// One value of a singular enum field; values the schema does not know are kept as they are.
    public mutating func readEnum<E: ProtoEnum>(_ tag: ProtoTag, _ name: StaticString) throws(ProtoError) -> E {
        E(rawValue: try read(ProtoInt32.self, tag, name))
    }

    /// Appends a repeated enum field's values, packed or not.
    public mutating func readRepeatedEnum<E: ProtoEnum>(_ tag: ProtoTag, _ name: StaticString, into values: inout [E]) throws(ProtoError) {
        guard tag.wireType == .lengthDelimited else {
            values.append(try readEnum(tag, name))
            return
        }
        let run = try readLength(tag.number, name)
        let outer = end
        position = run.lowerBound
        end = run.upperBound
        defer { end = outer }
        while position < end { values.append(E(rawValue: try ProtoInt32.read(from: &self, tag.number, name))) }
    }

    /// A message field. (Proto3 merges a message field seen twice; our encoders never send one
    /// twice, and keeping the last one is what a reader of the spec's "last one wins" expects.)
    @inline(__always)
    public mutating func readMessage<M: ProtoDecodable>(_ tag: ProtoTag, _ name: StaticString, as type: M.Type = M.self) throws(ProtoError) -> M {
        var message: M?
        try readNested(tag, name) { reader throws(ProtoError) in message = try M(decoding: &reader) }
        return message!
    }

    /// A length-delimited field whose content `body` reads as a message (e.g. a map entry): the
    /// reader's current message is that content while `body` runs, and errors it throws get this
    /// field in their path.
    @inline(__always)
    public mutating func readNested(_ tag: ProtoTag, _ name: StaticString,
                                    _ body: (inout ProtoReader) throws(ProtoError) -> Void) throws(ProtoError) {
        try expect(tag, .lengthDelimited, name)
        let content = try readLength(tag.number, name)
        guard depth < maximumDepth else { throw Self.tooDeep(tag, name, content, maximumDepth: maximumDepth) }
        let outer = end
        position = content.lowerBound
        end = content.upperBound
        depth += 1
        do {
            try body(&self)
        } catch {
            throw error.inField(tag.number, name)
        }
        // `body` reads to the end (generated loops stop only there); make sure of it anyway.
        position = end
        depth -= 1
        end = outer
    }

    /// Skips a field the schema does not know, appending its bytes (key included) to `unknown`.
    public mutating func skip(_ tag: ProtoTag, preserving unknown: inout ProtoUnknownFields) throws(ProtoError) {
        try skip(tag)
        unknown.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[fieldStart..<position]))
    }

    /// Skips a field the schema does not know.
    public mutating func skip(_ tag: ProtoTag) throws(ProtoError) {
        switch tag.wireType {
        case .varint: _ = try readVarint(tag.number, nil)
        case .fixed64: _ = try readFixed64(tag.number, nil)
        case .fixed32: _ = try readFixed32(tag.number, nil)
        case .lengthDelimited: _ = try readLength(tag.number, nil)
        case .startGroup, .endGroup: preconditionFailure("nextTag() refuses groups")
        }
    }

    // MARK: Primitives

    /// A varint of at most 10 bytes. Bits beyond 64 in the tenth byte are dropped, as the
    /// reference implementations do. The one-byte case (most keys, lengths, small numbers) is
    /// inlined; longer ones are read out of line.
    @inline(__always)
    public mutating func readVarint(_ number: Int, _ name: StaticString?) throws(ProtoError) -> UInt64 {
        if position < end {
            let first = buffer[position]
            if first < 0x80 {
                position += 1
                return UInt64(first)
            }
        }
        return try readLongVarint(number, name)
    }

    @inline(never)
    private mutating func readLongVarint(_ number: Int, _ name: StaticString?) throws(ProtoError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var p = position
        while true {
            guard shift < 70 else {
                throw Self.fail(.varintTooLong, number, name, at: position, "varint is longer than 10 bytes")
            }
            guard p < end else {
                throw Self.fail(.truncated, number, name, at: position, "varint runs past the end of the message")
            }
            let byte = buffer[p]
            p += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                position = p
                return result
            }
            shift += 7
        }
    }

    public mutating func readFixed32(_ number: Int, _ name: StaticString?) throws(ProtoError) -> UInt32 {
        guard end - position >= 4 else {
            throw Self.fail(.truncated, number, name, at: position, "a 32-bit value needs 4 bytes, \(end - position) left in the message")
        }
        defer { position += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    public mutating func readFixed64(_ number: Int, _ name: StaticString?) throws(ProtoError) -> UInt64 {
        guard end - position >= 8 else {
            throw Self.fail(.truncated, number, name, at: position, "a 64-bit value needs 8 bytes, \(end - position) left in the message")
        }
        defer { position += 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }

    /// A length prefix and the range of bytes it covers, which the reader steps over (callers that
    /// read the content step back to its start).
    @inline(__always)
    public mutating func readLength(_ number: Int, _ name: StaticString?) throws(ProtoError) -> Range<Int> {
        let at = position
        let length = try readVarint(number, name)
        let left = end - position
        guard length <= UInt64(left) else {
            throw Self.lengthPastEnd(number, name, at: at, length: length, left: left)
        }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    public mutating func readString(_ number: Int, _ name: StaticString?) throws(ProtoError) -> String {
        let range = try readLength(number, name)
        if range.isEmpty { return "" }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[range])
        let string = bytes.withMemoryRebound(to: UInt8.self) { utf8 -> String? in
            // Most strings on this wire (ids, titles, categories) are ASCII, and ASCII is valid
            // UTF-8: then skip `String(validating:as:)`, whose generic path cost a coordinator
            // 6% of its CPU (it decodes every hit of every shard).
            if Self.isASCII(utf8) { return String(decoding: utf8, as: UTF8.self) }
            return String(validating: utf8, as: UTF8.self)
        }
        guard let string else {
            throw Self.fail(.invalidUTF8, number, name, at: range.lowerBound, "a string of \(range.count) bytes is not valid UTF-8")
        }
        return string
    }

    /// A string field's bytes, validated as UTF-8 as ``readString(_:_:)`` does but not copied: the
    /// range of the reader's buffer they occupy (for views that keep the buffer, e.g.
    /// ``EncodedEntryHit``).
    @inline(__always)
    public mutating func readUTF8Range(_ tag: ProtoTag, _ name: StaticString, validate: Bool = true) throws(ProtoError) -> Range<Int> {
        try expect(tag, .lengthDelimited, name)
        let range = try readLength(tag.number, name)
        guard validate else { return range }  // read (and checked) once before
        let valid = UnsafeRawBufferPointer(rebasing: buffer[range]).withMemoryRebound(to: UInt8.self) { utf8 in
            Self.isASCII(utf8) || String(validating: utf8, as: UTF8.self) != nil
        }
        guard valid else { throw Self.invalidUTF8(tag, name, range) }
        return range
    }

    @inline(never)
    private static func invalidUTF8(_ tag: ProtoTag, _ name: StaticString, _ range: Range<Int>) -> ProtoError {
        fail(.invalidUTF8, tag.number, name, at: range.lowerBound, "a string of \(range.count) bytes is not valid UTF-8")
    }

    /// ``readUTF8Range(_:_:validate:)``'s bytes themselves: a slice of the reader's buffer, valid
    /// while that buffer is (for views into an owned buffer, e.g. ``MessageBuffer``).
    @inline(__always)
    public mutating func readUTF8Bytes(_ tag: ProtoTag, _ name: StaticString, validate: Bool = true) throws(ProtoError) -> UnsafeRawBufferPointer {
        let range = try readUTF8Range(tag, name, validate: validate)
        return UnsafeRawBufferPointer(rebasing: buffer[range])
    }

    /// The bytes of `range`, positions of the reader's buffer (as ``position`` counts them).
    public func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[range])
    }

    /// True when every byte is below 0x80; eight bytes at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        var bits: UInt64 = 0
        while index + 8 <= bytes.count {
            bits |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            bits |= UInt64(bytes[index])
            index += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    public mutating func readBytes(_ number: Int, _ name: StaticString?) throws(ProtoError) -> [UInt8] {
        let range = try readLength(number, name)
        return Array(UnsafeRawBufferPointer(rebasing: buffer[range]))
    }

    // MARK: Helpers
    //
    // The error builders are static and `expect` is mutating, on purpose: a non-mutating method
    // called on the `inout` reader in a hot loop made the compiler copy the whole reader to the
    // stack at every field and read it back at once (a store-forwarding stall on each copy), which
    // was a third of the time a coordinator spent reading its shards' answers.

    @inline(never)
    private static func tooDeep(_ tag: ProtoTag, _ name: StaticString, _ content: Range<Int>, maximumDepth: Int) -> ProtoError {
        ProtoError(.tooDeep, fieldPath: ProtoError.describe(tag.number, name),
                   detail: "messages are nested more than \(maximumDepth) deep", offset: content.lowerBound)
    }

    @inline(never)
    private static func lengthPastEnd(_ number: Int, _ name: StaticString?, at: Int, length: UInt64, left: Int) -> ProtoError {
        fail(.lengthPastEnd, number, name, at: at, "length \(length) runs past the end of the message (\(left) bytes left)")
    }

    @inline(never)
    private static func wireTypeMismatch(_ tag: ProtoTag, _ wireType: ProtoWireType, _ name: StaticString, at fieldStart: Int) -> ProtoError {
        fail(.wireTypeMismatch, tag.number, name, at: fieldStart, "wire type \(tag.wireType) where its type needs wire type \(wireType)")
    }

    @inline(__always)
    private mutating func expect(_ tag: ProtoTag, _ wireType: ProtoWireType, _ name: StaticString) throws(ProtoError) {
        guard tag.wireType == wireType else { throw Self.wireTypeMismatch(tag, wireType, name, at: fieldStart) }
    }

    private static func fail(_ kind: ProtoError.Kind, _ number: Int, _ name: StaticString?, at offset: Int, _ detail: String) -> ProtoError {
        ProtoError(kind, fieldPath: number == 0 ? "" : ProtoError.describe(number, name), detail: detail, offset: offset)
    }
}
