/// Appends the protobuf binary encoding of fields to one growing byte array.
///
/// Nested messages are written in place: the writer reserves one byte for the length, writes the
/// message, and only when the message turns out to be 128 bytes or longer shifts it right to make
/// room for a longer length varint. So encoding allocates nothing but the output array (and, for a
/// map, the array of its sorted keys), and costs O(bytes × nesting depth) in the worst case.
public struct ProtoWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(reservingCapacity capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Fields (generated code calls these)

    /// Writes a singular field unless it holds its type's default (proto3 implicit presence).
    public mutating func write<T: ProtoScalarType>(_ type: T.Type, _ number: Int, _ value: T.Value) {
        guard !T.isDefault(value) else { return }
        writePresent(type, number, value)
    }

    /// Writes a field whatever its value: `optional` fields that are set, unpacked repeated
    /// elements, map entry keys and values.
    public mutating func writePresent<T: ProtoScalarType>(_ type: T.Type, _ number: Int, _ value: T.Value) {
        writeKey(number, T.wireType)
        T.write(value, to: &self)
    }

    /// Writes a repeated scalar field: packed (one length-delimited run) for numeric types, one
    /// field per element for strings and bytes. Nothing for an empty array.
    public mutating func writeRepeated<T: ProtoScalarType>(_ type: T.Type, _ number: Int, _ values: [T.Value]) {
        guard !values.isEmpty else { return }
        guard T.wireType != .lengthDelimited else {
            for value in values { writePresent(type, number, value) }
            return
        }
        writeKey(number, .lengthDelimited)
        var length = 0
        for value in values { length += T.encodedSize(value) }
        writeVarint(UInt64(length))
        for value in values { T.write(value, to: &self) }
    }

    /// Writes an enum field unless it holds the value 0.
    public mutating func writeEnum<E: ProtoEnum>(_ number: Int, _ value: E) {
        guard value.rawValue != 0 else { return }
        writePresent(ProtoInt32.self, number, value.rawValue)
    }

    /// Writes a repeated enum field, packed.
    public mutating func writeRepeatedEnum<E: ProtoEnum>(_ number: Int, _ values: [E]) {
        guard !values.isEmpty else { return }
        writeKey(number, .lengthDelimited)
        var length = 0
        for value in values { length += ProtoInt32.encodedSize(value.rawValue) }
        writeVarint(UInt64(length))
        for value in values { ProtoInt32.write(value.rawValue, to: &self) }
    }

    /// Writes a message field (also when it has no fields set: presence is the point).
    public mutating func writeMessage<M: ProtoMessage>(_ number: Int, _ message: M) {
        writeNested(number) { message.encode(to: &$0) }
    }

    /// Writes a length-delimited field whose content `body` writes, e.g. a map entry.
    public mutating func writeNested<E: Error>(_ number: Int, _ body: (inout ProtoWriter) throws(E) -> Void) throws(E) {
        writeKey(number, .lengthDelimited)
        let lengthAt = bytes.count
        bytes.append(0)
        try body(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        // Make room for the longer varint: shift the content right (rare: only messages ≥ 128 bytes).
        let size = Self.varintSize(UInt64(length))
        bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: lengthAt + 1)
        var value = UInt64(length)
        for i in 0..<size {
            bytes[lengthAt + i] = UInt8(truncatingIfNeeded: value) | (i < size - 1 ? 0x80 : 0)
            value >>= 7
        }
    }

    /// Appends already encoded fields (unknown fields being passed through).
    public mutating func writeUnknown(_ fields: ProtoUnknownFields) {
        bytes.append(contentsOf: fields.bytes)
    }

    /// Map keys in encoding order: string keys by UTF-8 bytes (as every protobuf library's
    /// deterministic mode does), integer keys numerically.
    public static func sortedKeys<V>(_ map: [String: V]) -> [String] {
        map.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    public static func sortedKeys<K: FixedWidthInteger, V>(_ map: [K: V]) -> [K] {
        map.keys.sorted()
    }

    // MARK: Primitives

    public mutating func writeKey(_ number: Int, _ wireType: ProtoWireType) {
        writeVarint(UInt64(number) << 3 | UInt64(wireType.rawValue))
    }

    public mutating func writeVarint(_ value: UInt64) {
        // Most varints (keys, lengths, small numbers) are one byte: one append. Longer ones are
        // built in a register-sized scratch and appended at once, not byte by byte (each append
        // checks uniqueness and capacity).
        if value < 0x80 {
            bytes.append(UInt8(value))
            return
        }
        var scratch: (UInt64, UInt64) = (0, 0)
        var value = value
        var count = 0
        withUnsafeMutableBytes(of: &scratch) { scratch in
            while value >= 0x80 {
                scratch[count] = UInt8(truncatingIfNeeded: value) | 0x80
                value >>= 7
                count += 1
            }
            scratch[count] = UInt8(value)
            count += 1
        }
        withUnsafeBytes(of: &scratch) { appendRaw(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    public mutating func writeFixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { appendRaw($0) }
    }

    public mutating func writeFixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { appendRaw($0) }
    }

    public mutating func writeLengthDelimited(_ content: some Collection<UInt8>) {
        writeVarint(UInt64(content.count))
        bytes.append(contentsOf: content)
    }

    /// As the generic form, for bytes lent by the caller (a node's fields read in its memory
    /// map): one copy with `memcpy`, where the generic append copies a raw buffer byte by byte.
    public mutating func writeLengthDelimited(_ content: UnsafeRawBufferPointer) {
        writeVarint(UInt64(content.count))
        appendRaw(content)
    }

    /// Appends bytes already in protobuf's encoding (fields a caller keeps encoded), with one copy.
    public mutating func writeRaw(_ raw: UnsafeRawBufferPointer) {
        appendRaw(raw)
    }

    private mutating func appendRaw(_ raw: UnsafeRawBufferPointer) {
        guard !raw.isEmpty else { return }
        raw.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0) }
    }

    /// Bytes a varint of `value` takes: 1 to 10.
    public static func varintSize(_ value: UInt64) -> Int {
        // 1 + floor(bits needed − 1) / 7, with 0 taking one byte.
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }
}
