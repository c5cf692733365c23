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
/// is copied as UTF-8. A run without any of those is copied in one piece.
///
/// Each call appends its whole token at once — the comma, a key with its quotes and colon, a
/// quoted and escaped string — through one `OutputSpan` (`append(addingCapacity:)`): an `append`
/// per byte checked the array's uniqueness and capacity every time, and that was most of what a
/// coordinator spent writing its JSON answers.
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
        let comma = separate()
        name.withUTF8Buffer { name in
            bytes.append(addingCapacity: name.count + 4) { out in
                if comma { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\""))
                Self.copy(UnsafeRawBufferPointer(name), to: &out)
                out.append(UInt8(ascii: "\""))
                out.append(UInt8(ascii: ":"))
            }
        }
        afterKey = true
    }

    /// An object member's name from any text (escaped). Disfavoured, so that a literal name takes
    /// the `StaticString` form, which needs no escaping (a literal would otherwise be a `String`).
    @_disfavoredOverload
    public mutating func key(_ name: String) {
        var name = name
        name.withUTF8 { key(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// An object member's name from UTF-8 bytes (escaped).
    public mutating func key(utf8 name: UnsafeRawBufferPointer) {
        quoted(name, then: UInt8(ascii: ":"))
        afterKey = true
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// A string from UTF-8 bytes (valid UTF-8: the caller's promise, as the index's stored text is
    /// validated when it is indexed).
    public mutating func string(utf8 value: UnsafeRawBufferPointer) {
        quoted(value, then: nil)
    }

    /// A string from two runs of UTF-8 bytes written one after the other (each valid UTF-8), such
    /// as a completion's text: the field's text before the partial word, then the completed word.
    public mutating func string(utf8 head: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer) {
        let comma = separate()
        bytes.append(addingCapacity: (head.count + tail.count) * 6 + 3) { out in
            if comma { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            Self.escape(head, to: &out)
            Self.escape(tail, to: &out)
            out.append(UInt8(ascii: "\""))
        }
    }

    public mutating func integer(_ value: Int64) {
        number(value.magnitude, negative: value < 0)
    }

    public mutating func unsigned(_ value: UInt64) {
        number(value, negative: false)
    }

    public mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    public mutating func null() {
        literal("null")
    }

    /// Appends a line feed after the top-level value (HTTP bodies and CLI output end with one).
    public mutating func newline() {
        precondition(depth == 0, "newline inside an open container")
        bytes.append(UInt8(ascii: "\n"))
    }

    // MARK: Internals

    private mutating func open(_ bracket: UInt8) {
        let comma = separate()
        precondition(depth < 64, "JSON nested deeper than 64 levels")
        depth += 1
        hasMember &= ~(1 << UInt64(depth - 1))
        bytes.append(addingCapacity: 2) { out in
            if comma { out.append(UInt8(ascii: ",")) }
            out.append(bracket)
        }
    }

    private mutating func close(_ bracket: UInt8) {
        precondition(depth > 0 && !afterKey, "unbalanced JSON container")
        depth -= 1
        bytes.append(bracket)
    }

    /// Whether the value or key about to be written needs a comma before it; records that its
    /// container has a member.
    private mutating func separate() -> Bool {
        if afterKey {
            afterKey = false
            return false
        }
        guard depth > 0 else { return false }
        let bit: UInt64 = 1 << UInt64(depth - 1)
        defer { hasMember |= bit }
        return hasMember & bit != 0
    }

    private mutating func literal(_ text: StaticString) {
        let comma = separate()
        text.withUTF8Buffer { text in
            bytes.append(addingCapacity: text.count + 1) { out in
                if comma { out.append(UInt8(ascii: ",")) }
                Self.copy(UnsafeRawBufferPointer(text), to: &out)
            }
        }
    }

    private mutating func number(_ magnitude: UInt64, negative: Bool) {
        let comma = separate()
        bytes.append(addingCapacity: 22) { out in
            if comma { out.append(UInt8(ascii: ",")) }
            if negative { out.append(UInt8(ascii: "-")) }
            guard magnitude >= 10 else {
                out.append(UInt8(ascii: "0") + UInt8(magnitude))
                return
            }
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64.max's 20 digits
            withUnsafeMutableBytes(of: &digits) { buffer in
                var rest = magnitude
                var count = 0
                while rest > 0 {
                    count += 1
                    buffer[24 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                Self.copy(UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]), to: &out)
            }
        }
    }

    /// `text` quoted and escaped, after a comma if one is due, and followed by `suffix` (a key's
    /// colon): one append, sized for the worst case (every byte escaped as `\u00XX`).
    private mutating func quoted(_ text: UnsafeRawBufferPointer, then suffix: UInt8?) {
        let comma = separate()
        bytes.append(addingCapacity: text.count * 6 + 4) { out in
            if comma { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            Self.escape(text, to: &out)
            out.append(UInt8(ascii: "\""))
            if let suffix { out.append(suffix) }
        }
    }

    /// `bytes` into `out`, which has room for them (one copy).
    @inline(__always)
    private static func copy(_ bytes: UnsafeRawBufferPointer, to out: inout OutputSpan<UInt8>) {
        guard !bytes.isEmpty else { return }
        out.withUnsafeMutableBufferPointer { buffer, count in
            UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...])).copyMemory(from: bytes)
            count += bytes.count
        }
    }

    /// `text` escaped into `out` (which has room for six bytes per byte of text): runs that need no
    /// escape are copied whole.
    private static func escape(_ text: UnsafeRawBufferPointer, to out: inout OutputSpan<UInt8>) {
        var runStart = 0
        var index = 0
        while index < text.count {
            // Eight bytes at a time while none can need an escape (almost all text).
            if index + 8 <= text.count, !mayNeedEscape(text.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
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
            copy(UnsafeRawBufferPointer(rebasing: text[runStart..<index]), to: &out)
            out.append(UInt8(ascii: "\\"))
            switch escape {
            case .byte(let byte):
                appendEscape(byte, to: &out)
                index += 1
            case .separator(let hex):
                out.append(UInt8(ascii: "u"))
                hex.withUTF8Buffer { copy(UnsafeRawBufferPointer($0), to: &out) }
                index += 3
            }
            runStart = index
        }
        copy(UnsafeRawBufferPointer(rebasing: text[runStart..<text.count]), to: &out)
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

    /// The rest of one byte's escape, after its backslash.
    private static func appendEscape(_ byte: UInt8, to out: inout OutputSpan<UInt8>) {
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
        if let short {
            out.append(short)
            return
        }
        let hexDigits: StaticString = "0123456789abcdef"
        hexDigits.withUTF8Buffer { hex in
            out.append(UInt8(ascii: "u"))
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "0"))
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
    }
}
