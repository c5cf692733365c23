// Exact reading of JSON numbers as integers: one definition for every integer the product reads
// from JSON, the catalog's "weight" (Catalog) and the JSON API's integer fields (Wire), so that a
// catalog line and a request say the same thing by "12", "12.0", "1e3" or the string "12".
//
// Exact, not through a Double: "1e3" and "12.0" are the integers 1000 and 12, "1.5" and "1e-3"
// are not integers, and "9007199254740993" is not silently rounded to its neighbour.

/// A JSON number's text read as a whole number.
///
/// The text must follow the JSON number grammar (RFC 8259 §6: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`),
/// so that a string holding a number is checked as strictly as a number: `"12"`, `"12.0"`, `"1e3"`
/// are read; `" 12"`, `"+12"`, `"012"`, `"12a"`, `""` are not numbers.
///
/// Example:
/// ```swift
/// WholeNumber(text: "1.5e1")   // .value(negative: false, magnitude: 15)
/// WholeNumber(text: "-0")      // .value(negative: false, magnitude: 0)
/// WholeNumber(text: "1.5")     // .notWhole
/// WholeNumber(text: "1e20")    // .tooLarge
/// WholeNumber(text: "7").integer(as: UInt8.self)   // 7
/// ```
public enum WholeNumber: Equatable, Sendable {
    /// A whole number: its sign and magnitude. Zero is never negative ("-0" is 0).
    case value(negative: Bool, magnitude: UInt64)
    /// A number with a fraction that is not zero ("1.5", "1e-3"), or text that is not a JSON
    /// number at all.
    case notWhole
    /// A whole number whose magnitude is 2^64 or more.
    case tooLarge

    /// Reads the UTF-8 text of a number (a JSON number token, or the content of a JSON string).
    ///
    /// Complexity: O(length of the text). Plain digits (the usual case) take a loop and no
    /// allocation: the catalog reads one weight per line on the build's hot path.
    public init(text: UnsafeBufferPointer<UInt8>) {
        let n = text.count
        // Fast path: 1 to 19 plain digits, no leading zero (19 digits always fit in a UInt64).
        if n > 0 && n <= 19 && (text[0] != UInt8(ascii: "0") || n == 1) {
            var value: UInt64 = 0
            var plain = true
            for byte in text {
                let digit = byte &- UInt8(ascii: "0")
                if digit > 9 { plain = false; break }
                value = value &* 10 &+ UInt64(digit)
            }
            if plain {
                self = .value(negative: false, magnitude: value)
                return
            }
        }
        self = Self.general(text)
    }

    /// Reads a number's text held in a `String` (a JSON API field's number or string).
    public init(text: String) {
        var text = text
        self = text.withUTF8 { Self(text: $0) }
    }

    /// The number as a `T`, or nil when it is not whole or out of `T`'s range.
    public func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        guard case .value(let negative, let magnitude) = self else { return nil }
        if !negative { return T(exactly: magnitude) }
        // −magnitude, computed as −(magnitude − 1) − 1 so that T.min itself fits.
        guard T.isSigned, let below = T(exactly: magnitude - 1) else { return nil }
        return 0 - below - 1
    }

    /// Any JSON number: checks the grammar while collecting the significant digits, then scales.
    private static func general(_ text: UnsafeBufferPointer<UInt8>) -> WholeNumber {
        let n = text.count
        var i = 0
        func isDigit(_ index: Int) -> Bool {
            index < n && text[index] >= UInt8(ascii: "0") && text[index] <= UInt8(ascii: "9")
        }
        var negative = false
        if i < n && text[i] == UInt8(ascii: "-") { negative = true; i += 1 }

        // Significant digits of the integer and fraction parts, leading zeros dropped; `scale` is
        // the power of ten they are multiplied by.
        var digits: [UInt8] = []
        var scale = 0
        guard isDigit(i) else { return .notWhole }
        if text[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) { return .notWhole }  // JSON has no leading zeros: "012" is not a number
        } else {
            while isDigit(i) {
                digits.append(text[i] &- UInt8(ascii: "0"))
                i += 1
            }
        }
        if i < n && text[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return .notWhole }
            while isDigit(i) {
                if !(digits.isEmpty && text[i] == UInt8(ascii: "0")) { digits.append(text[i] &- UInt8(ascii: "0")) }
                scale -= 1
                i += 1
            }
        }
        if i < n && (text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E")) {
            i += 1
            var exponentNegative = false
            if i < n && (text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-")) {
                exponentNegative = text[i] == UInt8(ascii: "-")
                i += 1
            }
            guard isDigit(i) else { return .notWhole }
            var exponent = 0
            while isDigit(i) {
                // Saturate: any exponent beyond a million is equally out of range (or zero).
                exponent = min(exponent * 10 + Int(text[i] &- UInt8(ascii: "0")), 1_000_000)
                i += 1
            }
            scale += exponentNegative ? -exponent : exponent
        }
        guard i == n else { return .notWhole }
        // A zero mantissa is 0 whatever the scale (and "-0" is 0).
        if digits.isEmpty { return .value(negative: false, magnitude: 0) }
        // Trailing zeros absorb negative scale: 12.50e1 = 1250 × 10^-1 = 125.
        while scale < 0, let last = digits.last, last == 0 {
            digits.removeLast()
            scale += 1
        }
        if scale < 0 { return .notWhole }
        // UInt64.max has 20 digits.
        if digits.count + scale > 20 { return .tooLarge }
        var value: UInt64 = 0
        for digit in digits + [UInt8](repeating: 0, count: scale) {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            if overflow1 || overflow2 { return .tooLarge }
            value = sum
        }
        return .value(negative: negative, magnitude: value)
    }
}
