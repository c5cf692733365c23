/// Appends compact JSON text (RFC 8259) to one growing byte array: the wire layer's only JSON
/// writer. Responses are written straight from their fields — no tree of values, no `String` —
/// so a response costs its output array and nothing else.
///
/// The writer places the commas: it remembers, per open object or array, whether a member was
/// written yet (one bit per level of a 64-bit stack, so writing allocates nothing but the output).
/// Nesting is limited to 64 levels; the API's messages nest four deep.
///
/// ```swift
/// var json = JSONWriter()
/// json.beginObject()
/// json.key("title"); json.string("Red Shoes")
/// json.key("weight"); json.unsigned(9)
/// json.endObject()
/// // json.bytes == Array(#"{"title":"Red Shoes","weight":9}"#.utf8)
/// ```
///
/// Strings are escaped as `JSONValue` always did: quote, backslash and control characters, plus
/// U+2028 and U+2029 (valid JSON, but line breaks to JavaScript's older parsers); everything else
/// is copied as UTF-8. A run without any of those is copied in one append.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    /// Bit `depth - 1` set: the innermost open container already has a member.
    private var hasMember: UInt64 = 0
    private var depth = 0
    /// A key was written and its value is due (the value takes no comma).
    private var afterKey = false

    public init(reservingCapacity capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Continues `text`, an object opened and given at least one member but not yet closed (a
    /// response's first part kept in a cache, its last members written per call).
    public init(continuingObject text: [UInt8]) {
        bytes = text
        depth = 1
        hasMember = 1
    }

    // MARK: Containers

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// An array of `items`, each written by `body`.
    public mutating func array<Items: Sequence>(_ items: Items, _ body: (inout JSONWriter, Items.Element) -> Void) {
        beginArray()
        for item in items { body(&self, item) }
        endArray()
    }

    /// An object whose members `body` writes.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        beginObject()
        body(&self)
        endObject()
    }

    /// An object member's name; its value is the next thing written. Names of the API's fields are
    /// ASCII identifiers, which need no escaping.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// An object member's name from any text (escaped).
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// An object member's name from UTF-8 bytes (escaped).
    public mutating func key(utf8 name: UnsafeRawBufferPointer) {
        separate()
        appendQuoted(utf8: name)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
    }

    /// A string from UTF-8 bytes (valid UTF-8: the caller's promise, as the index's stored text is
    /// validated when it is indexed).
    public mutating func string(utf8 value: UnsafeRawBufferPointer) {
        separate()
        appendQuoted(utf8: value)
    }

    public mutating func integer(_ value: Int64) {
        separate()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDigits(value.magnitude)
        } else {
            appendDigits(UInt64(value))
        }
    }

    public mutating func unsigned(_ value: UInt64) {
        separate()
        appendDigits(value)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Self.trueText : Self.falseText)
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: Self.nullText)
    }

    /// Appends a line feed after the top-level value (HTTP bodies and CLI output end with one).
    public mutating func newline() {
        precondition(depth == 0, "newline inside an open container")
        bytes.append(UInt8(ascii: "\n"))
    }

    // MARK: Internals

    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)
    private static let nullText = Array("null".utf8)

    private mutating func open(_ bracket: UInt8) {
        separate()
        precondition(depth < 64, "JSON nested deeper than 64 levels")
        depth += 1
        hasMember &= ~(1 << UInt64(depth - 1))
        bytes.append(bracket)
    }

    private mutating func close(_ bracket: UInt8) {
        precondition(depth > 0 && !afterKey, "unbalanced JSON container")
        depth -= 1
        bytes.append(bracket)
    }

    /// Writes the comma a value or key needs, and records that its container has a member.
    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard depth > 0 else { return }
        let bit: UInt64 = 1 << UInt64(depth - 1)
        if hasMember & bit != 0 { bytes.append(UInt8(ascii: ",")) }
        hasMember |= bit
    }

    private mutating func appendDigits(_ value: UInt64) {
        guard value >= 10 else {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64.max's 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = value
            while rest > 0 {
                count += 1
                buffer[24 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]))
        }
    }

    private mutating func appendQuoted(_ value: String) {
        var value = value
        value.withUTF8 { appendQuoted(utf8: UnsafeRawBufferPointer($0)) }
    }

    private mutating func appendQuoted(utf8 text: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        while index < text.count {
            // Eight bytes at a time while none can need an escape (almost all text).
            if index + 8 <= text.count, !Self.mayNeedEscape(text.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = text[index]
            let escape: EscapeKind
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                escape = .byte(byte)
            } else if byte == 0xE2, index + 2 < text.count, text[index + 1] == 0x80, text[index + 2] & 0xFE == 0xA8 {
                escape = .separator(text[index + 2] == 0xA8 ? "2028" : "2029")
            } else {
                index += 1
                continue
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[runStart..<index]))
            switch escape {
            case .byte(let byte):
                appendEscape(byte)
                index += 1
            case .separator(let hex):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "u"))
                hex.withUTF8Buffer { bytes.append(contentsOf: $0) }
                index += 3
            }
            runStart = index
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[runStart..<text.count]))
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is a control character, a quote, a backslash or
    /// 0xE2 (the lead byte of U+2028 and U+2029), by the bit tricks that find a zero byte (Hacker's
    /// Delight 6-1; "less than" holds for bounds up to 0x80): exact for "any", so a word it passes
    /// is copied without looking at its bytes one by one.
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        let below0x20 = (word &- ones &* 0x20) & ~word & highs != 0
        return below0x20 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C)) || hasZeroByte(word ^ (ones &* 0xE2))
    }

    private enum EscapeKind {
        case byte(UInt8)
        case separator(StaticString)
    }

    private mutating func appendEscape(_ byte: UInt8) {
        let short: UInt8? = switch byte {
        case UInt8(ascii: "\""): UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): UInt8(ascii: "\\")
        case UInt8(ascii: "\n"): UInt8(ascii: "n")
        case UInt8(ascii: "\r"): UInt8(ascii: "r")
        case UInt8(ascii: "\t"): UInt8(ascii: "t")
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        default: nil
        }
        bytes.append(UInt8(ascii: "\\"))
        if let short {
            bytes.append(short)
            return
        }
        let hexDigits: StaticString = "0123456789abcdef"
        hexDigits.withUTF8Buffer { hex in
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
