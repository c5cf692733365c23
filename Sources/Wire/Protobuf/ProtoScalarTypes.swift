/// How one proto scalar type maps to a Swift type and to the wire.
///
/// The conforming types are caseless enums named after the proto types (`ProtoUInt32` for
/// `uint32`); generated code passes them to `ProtoWriter` and `ProtoReader` so that one generic
/// implementation serves every type (specialised by the compiler, no dynamic dispatch).
public protocol ProtoScalarType {
    associatedtype Value: Sendable & Hashable
    /// The wire type of one value (repeated numeric values are packed in a length-delimited run).
    static var wireType: ProtoWireType { get }
    static func isDefault(_ value: Value) -> Bool
    /// Bytes `write` appends for a varint type (packed runs need the length first).
    static func encodedSize(_ value: Value) -> Int
    /// Appends the value without a key.
    static func write(_ value: Value, to writer: inout ProtoWriter)
    /// Reads one value whose key has been read and whose wire type has been checked.
    static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Value
}

extension ProtoScalarType where Value: FixedWidthInteger {
    public static func isDefault(_ value: Value) -> Bool { value == 0 }
}

/// `int32`: negative values take 10 bytes (sign-extended to 64 bits, as the spec requires).
public enum ProtoInt32: ProtoScalarType {
    public static var wireType: ProtoWireType { .varint }
    public static func encodedSize(_ value: Int32) -> Int { ProtoWriter.varintSize(UInt64(bitPattern: Int64(value))) }
    public static func write(_ value: Int32, to writer: inout ProtoWriter) { writer.writeVarint(UInt64(bitPattern: Int64(value))) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Int32 {
        Int32(truncatingIfNeeded: try reader.readVarint(number, name))
    }
}

/// `int64`.
public enum ProtoInt64: ProtoScalarType {
    public static var wireType: ProtoWireType { .varint }
    public static func encodedSize(_ value: Int64) -> Int { ProtoWriter.varintSize(UInt64(bitPattern: value)) }
    public static func write(_ value: Int64, to writer: inout ProtoWriter) { writer.writeVarint(UInt64(bitPattern: value)) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Int64 {
        Int64(bitPattern: try reader.readVarint(number, name))
    }
}

/// `uint32`: a varint whose upper 32 bits are dropped on decode (the spec's truncation rule).
public enum ProtoUInt32: ProtoScalarType {
    public static var wireType: ProtoWireType { .varint }
    public static func encodedSize(_ value: UInt32) -> Int { ProtoWriter.varintSize(UInt64(value)) }
    public static func write(_ value: UInt32, to writer: inout ProtoWriter) { writer.writeVarint(UInt64(value)) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> UInt32 {
        UInt32(truncatingIfNeeded: try reader.readVarint(number, name))
    }
}

/// `uint64`.
public enum ProtoUInt64: ProtoScalarType {
    public static var wireType: ProtoWireType { .varint }
    public static func encodedSize(_ value: UInt64) -> Int { ProtoWriter.varintSize(value) }
    public static func write(_ value: UInt64, to writer: inout ProtoWriter) { writer.writeVarint(value) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> UInt64 {
        try reader.readVarint(number, name)
    }
}

/// `sint32`: zigzag, so small negative numbers stay short (0 → 0, −1 → 1, 1 → 2, …).
public enum ProtoSInt32: ProtoScalarType {
    public static var wireType: ProtoWireType { .varint }
    static func zigzag(_ value: Int32) -> UInt64 { UInt64(UInt32(bitPattern: (value << 1) ^ (value >> 31))) }
    public static func encodedSize(_ value: Int32) -> Int { ProtoWriter.varintSize(zigzag(value)) }
    public static func write(_ value: Int32, to writer: inout ProtoWriter) { writer.writeVarint(zigzag(value)) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Int32 {
        let raw = UInt32(truncatingIfNeeded: try reader.readVarint(number, name))
        return Int32(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }
}

/// `sint64`: zigzag.
public enum ProtoSInt64: ProtoScalarType {
    public static var wireType: ProtoWireType { .varint }
    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    public static func encodedSize(_ value: Int64) -> Int { ProtoWriter.varintSize(zigzag(value)) }
    public static func write(_ value: Int64, to writer: inout ProtoWriter) { writer.writeVarint(zigzag(value)) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Int64 {
        let raw = try reader.readVarint(number, name)
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }
}

/// `fixed32`: four bytes, little-endian.
public enum ProtoFixed32: ProtoScalarType {
    public static var wireType: ProtoWireType { .fixed32 }
    public static func encodedSize(_ value: UInt32) -> Int { 4 }
    public static func write(_ value: UInt32, to writer: inout ProtoWriter) { writer.writeFixed32(value) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> UInt32 {
        try reader.readFixed32(number, name)
    }
}

/// `fixed64`: eight bytes, little-endian.
public enum ProtoFixed64: ProtoScalarType {
    public static var wireType: ProtoWireType { .fixed64 }
    public static func encodedSize(_ value: UInt64) -> Int { 8 }
    public static func write(_ value: UInt64, to writer: inout ProtoWriter) { writer.writeFixed64(value) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> UInt64 {
        try reader.readFixed64(number, name)
    }
}

/// `sfixed32`.
public enum ProtoSFixed32: ProtoScalarType {
    public static var wireType: ProtoWireType { .fixed32 }
    public static func encodedSize(_ value: Int32) -> Int { 4 }
    public static func write(_ value: Int32, to writer: inout ProtoWriter) { writer.writeFixed32(UInt32(bitPattern: value)) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Int32 {
        Int32(bitPattern: try reader.readFixed32(number, name))
    }
}

/// `sfixed64`.
public enum ProtoSFixed64: ProtoScalarType {
    public static var wireType: ProtoWireType { .fixed64 }
    public static func encodedSize(_ value: Int64) -> Int { 8 }
    public static func write(_ value: Int64, to writer: inout ProtoWriter) { writer.writeFixed64(UInt64(bitPattern: value)) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Int64 {
        Int64(bitPattern: try reader.readFixed64(number, name))
    }
}

/// `float`: IEEE 754 binary32, little-endian. The default is +0 only (−0 is written), by bit pattern.
public enum ProtoFloat: ProtoScalarType {
    public static var wireType: ProtoWireType { .fixed32 }
    public static func isDefault(_ value: Float) -> Bool { value.bitPattern == 0 }
    public static func encodedSize(_ value: Float) -> Int { 4 }
    public static func write(_ value: Float, to writer: inout ProtoWriter) { writer.writeFixed32(value.bitPattern) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Float {
        Float(bitPattern: try reader.readFixed32(number, name))
    }
}

/// `double`: IEEE 754 binary64, little-endian. The default is +0 only, by bit pattern.
public enum ProtoDouble: ProtoScalarType {
    public static var wireType: ProtoWireType { .fixed64 }
    public static func isDefault(_ value: Double) -> Bool { value.bitPattern == 0 }
    public static func encodedSize(_ value: Double) -> Int { 8 }
    public static func write(_ value: Double, to writer: inout ProtoWriter) { writer.writeFixed64(value.bitPattern) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Double {
        Double(bitPattern: try reader.readFixed64(number, name))
    }
}

/// `bool`: a varint; any non-zero value decodes as true.
public enum ProtoBool: ProtoScalarType {
    public static var wireType: ProtoWireType { .varint }
    public static func isDefault(_ value: Bool) -> Bool { !value }
    public static func encodedSize(_ value: Bool) -> Int { 1 }
    public static func write(_ value: Bool, to writer: inout ProtoWriter) { writer.writeVarint(value ? 1 : 0) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> Bool {
        try reader.readVarint(number, name) != 0
    }
}

/// `string`: length-delimited UTF-8; anything else is refused on decode.
public enum ProtoString: ProtoScalarType {
    public static var wireType: ProtoWireType { .lengthDelimited }
    public static func isDefault(_ value: String) -> Bool { value.isEmpty }
    public static func encodedSize(_ value: String) -> Int {
        let count = value.utf8.count
        return ProtoWriter.varintSize(UInt64(count)) + count
    }
    /// The bytes lent by `withUTF8` and copied with one `memcpy` (``ProtoWriter/writeLengthDelimited(_:)-(UnsafeRawBufferPointer)``),
    /// not appended through the generic collection path: every string field of every message.
    public static func write(_ value: String, to writer: inout ProtoWriter) {
        var value = value
        value.withUTF8 { writer.writeLengthDelimited(UnsafeRawBufferPointer($0)) }
    }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> String {
        try reader.readString(number, name)
    }
}

/// `bytes`: length-delimited, any content.
public enum ProtoBytes: ProtoScalarType {
    public static var wireType: ProtoWireType { .lengthDelimited }
    public static func isDefault(_ value: [UInt8]) -> Bool { value.isEmpty }
    public static func encodedSize(_ value: [UInt8]) -> Int { ProtoWriter.varintSize(UInt64(value.count)) + value.count }
    public static func write(_ value: [UInt8], to writer: inout ProtoWriter) { writer.writeLengthDelimited(value) }
    public static func read(from reader: inout ProtoReader, _ number: Int, _ name: StaticString) throws(ProtoError) -> [UInt8] {
        try reader.readBytes(number, name)
    }
}
