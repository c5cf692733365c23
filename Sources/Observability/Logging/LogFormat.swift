import Foundation

/// How a ``LogRecord`` becomes one line of text.
///
/// Both formats write the fields `ts`, `level`, `logger`, `msg`, then the metadata in key order
/// (sorted, so lines are deterministic and diff well). A metadata key equal to one of those four
/// names is written with a leading underscore (`_msg`), so a line never has a duplicate key.
/// `ts` is RFC 3339 UTC with milliseconds: `2026-11-29T13:00:00.123Z`.
///
/// Escaping, shared by both formats inside quotes: `"` → `\"`, `\` → `\\`, newline → `\n`,
/// CR → `\r`, tab → `\t`; other control characters (C0, DEL, C1) and U+2028/U+2029 → `\uXXXX`.
/// Other non-ASCII text is written as UTF-8. So a line never contains a raw line break.
///
/// - ``logfmt``: `key=value`, separated by one space. A value is quoted only when it must be:
///   when it is empty or contains a space, `=`, `"`, `\` or a character that is escaped.
///   Characters not allowed in a key (space, `=`, `"`, `\`, control characters) become `_`.
/// - ``jsonLines``: one JSON object per line, every value a string.
///
/// ```swift
/// LogFormat.logfmt.line(for: record)
/// // ts=2026-11-29T13:00:00.123Z level=info logger=node msg="request done" status=OK
/// LogFormat.jsonLines.line(for: record)
/// // {"ts":"2026-11-29T13:00:00.123Z","level":"info","logger":"node","msg":"request done","status":"OK"}
/// ```
public enum LogFormat: Sendable, Hashable {
    /// `key=value key="quoted value"`, as read by Loki, Grafana and most log tools.
    case logfmt
    /// One JSON object per line (https://jsonlines.org).
    case jsonLines

    /// Renders `record` as one line, without the trailing newline. O(length of the line).
    public func line(for record: LogRecord) -> String {
        var bytes: [UInt8] = []
        encode(record, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the line for `record` (no trailing newline) to `out`.
    func encode(_ record: LogRecord, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + 96 + record.message.utf8.count + record.metadata.count * 32)
        switch self {
        case .logfmt:
            out.append(contentsOf: "ts=".utf8)
            LogEncoding.appendTimestamp(record.timestamp, into: &out)
            out.append(contentsOf: " level=".utf8)
            out.append(contentsOf: record.level.description.utf8)
            out.append(contentsOf: " logger=".utf8)
            LogEncoding.appendLogfmtValue(record.label, into: &out)
            out.append(contentsOf: " msg=".utf8)
            LogEncoding.appendLogfmtValue(record.message, into: &out)
            for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
                out.append(UInt8(ascii: " "))
                LogEncoding.appendLogfmtKey(LogEncoding.unreserved(key), into: &out)
                out.append(UInt8(ascii: "="))
                LogEncoding.appendLogfmtValue(value, into: &out)
            }
        case .jsonLines:
            out.append(contentsOf: #"{"ts":""#.utf8)
            LogEncoding.appendTimestamp(record.timestamp, into: &out)
            out.append(contentsOf: #"","level":""#.utf8)
            out.append(contentsOf: record.level.description.utf8)
            out.append(contentsOf: #"","logger":"#.utf8)
            LogEncoding.appendQuoted(record.label, into: &out)
            out.append(contentsOf: #","msg":"#.utf8)
            LogEncoding.appendQuoted(record.message, into: &out)
            for (key, value) in record.metadata.sorted(by: { $0.key < $1.key }) {
                out.append(UInt8(ascii: ","))
                LogEncoding.appendQuoted(LogEncoding.unreserved(key), into: &out)
                out.append(UInt8(ascii: ":"))
                LogEncoding.appendQuoted(value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

/// Byte-level helpers behind ``LogFormat``. They work on UTF-8 directly: a `String` is always
/// valid UTF-8, so every byte ≥ 0x80 belongs to a well-formed multi-byte sequence.
enum LogEncoding {
    static let reservedKeys: Set<String> = ["ts", "level", "logger", "msg"]

    static func unreserved(_ key: String) -> String {
        reservedKeys.contains(key) ? "_" + key : key
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `s` in double quotes, escaped as described on ``LogFormat``.
    static func appendQuoted(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(s, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `s` bare when logfmt allows it, else quoted.
    static func appendLogfmtValue(_ s: String, into out: inout [UInt8]) {
        if needsLogfmtQuotes(s) {
            appendQuoted(s, into: &out)
        } else {
            out.append(contentsOf: s.utf8)
        }
    }

    /// Appends `key` with every character that logfmt does not allow in a key replaced by `_`.
    static func appendLogfmtKey(_ key: String, into out: inout [UInt8]) {
        if key.isEmpty {
            out.append(UInt8(ascii: "_"))
            return
        }
        for scalar in key.unicodeScalars {
            switch scalar.value {
            case 0...0x20, 0x22, 0x3D, 0x5C, 0x7F...0x9F, 0x2028, 0x2029:
                out.append(UInt8(ascii: "_"))
            default:
                out.append(contentsOf: String(scalar).utf8)
            }
        }
    }

    static func needsLogfmtQuotes(_ s: String) -> Bool {
        if s.isEmpty { return true }
        var copy = s
        return copy.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                switch b {
                case 0...0x20, 0x22, 0x3D, 0x5C, 0x7F:
                    return true
                case 0xC2 where i + 1 < bytes.count && (0x80...0x9F).contains(bytes[i + 1]):
                    return true  // C1 control
                case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                    return true  // U+2028, U+2029
                default:
                    i += 1
                }
            }
            return false
        }
    }

    /// Appends `s` escaped for the inside of a quoted logfmt or JSON string.
    static func appendEscaped(_ s: String, into out: inout [UInt8]) {
        var copy = s
        copy.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                switch b {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])  // \"
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])  // \\
                case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0..<0x20, 0x7F:
                    appendUnicodeEscape(UInt32(b), into: &out)
                case 0xC2 where i + 1 < bytes.count && (0x80...0x9F).contains(bytes[i + 1]):
                    appendUnicodeEscape(UInt32(bytes[i + 1]), into: &out)
                    i += 1
                case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                    appendUnicodeEscape(bytes[i + 2] == 0xA8 ? 0x2028 : 0x2029, into: &out)
                    i += 2
                default:
                    out.append(b)
                }
                i += 1
            }
        }
    }

    private static func appendUnicodeEscape(_ code: UInt32, into out: inout [UInt8]) {
        out.append(contentsOf: [0x5C, UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(hexDigits[Int((code >> UInt32(shift)) & 0xF)])
        }
    }

    /// Appends `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC), truncated to the millisecond.
    ///
    /// Computed by hand rather than with `ISO8601DateFormatter`: no allocation, no locale, no
    /// shared formatter to guard. The day-to-date step is Howard Hinnant's `civil_from_days`.
    static func appendTimestamp(_ date: Date, into out: inout [UInt8]) {
        // Round to the microsecond first so that 0.123 stored as 0.12299999… still prints .123.
        // A date too far out for Int64 microseconds (±292,000 years) prints as the epoch.
        let micros = Int64(exactly: (date.timeIntervalSince1970 * 1_000_000).rounded()) ?? 0
        let ms = floorDiv(micros, 1000)
        var days = floorDiv(ms, 86_400_000)
        let msOfDay = ms - days * 86_400_000

        days += 719_468
        let era = floorDiv(days, 146_097)
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        appendDigits(year, width: 4, into: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, into: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, into: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(msOfDay / 3_600_000, width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(msOfDay / 60_000 % 60, width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(msOfDay / 1000 % 60, width: 2, into: &out)
        out.append(UInt8(ascii: "."))
        appendDigits(msOfDay % 1000, width: 3, into: &out)
        out.append(UInt8(ascii: "Z"))
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Appends a non-negative `value` zero-padded to at least `width` digits, without allocating
    /// (a year before 0 prints as 0000: RFC 3339 cannot say it anyway).
    private static func appendDigits(_ value: Int64, width: Int, into out: inout [UInt8]) {
        let v = max(value, 0)
        var divisor: Int64 = 1
        var digits = 1
        while divisor <= v / 10 {
            divisor *= 10
            digits += 1
        }
        for _ in digits..<max(width, digits) { out.append(UInt8(ascii: "0")) }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(v / divisor % 10))
            divisor /= 10
        }
    }
}
