// Exact reading of JSON numbers as non-negative integers, for "weight".
//
// yajl hands us numbers as text (we install its `yajl_number` callback), which lets us decide
// exactly instead of going through a Double: "1e3" and "12.0" are the integers 1000 and 12, "1.5"
// and "1e-3" are not integers, and "9007199254740993" is not silently rounded.

/// How a JSON number reads as a weight.
enum JSONIntegerReading: Equatable {
    case value(UInt64)
    case negative
    case notAnInteger
    case tooLarge
}

/// Reads the JSON number text `text` (already checked by yajl against the JSON number grammar)
/// as a non-negative integer no larger than `maximum`.
///
/// "-0" reads as 0. Complexity: O(length of the text).
func readJSONInteger(_ text: UnsafeBufferPointer<UInt8>, maximum: UInt64) -> JSONIntegerReading {
    let n = text.count
    // Fast path for plain digits (the usual case): no allocation. 19 digits always fit in UInt64.
    if n > 0 && n <= 19 {
        var value: UInt64 = 0
        var plain = true
        for byte in text {
            let digit = byte &- UInt8(ascii: "0")
            if digit > 9 { plain = false; break }
            value = value &* 10 &+ UInt64(digit)
        }
        if plain { return value > maximum ? .tooLarge : .value(value) }
    }
    var i = 0
    var negative = false
    if i < n && text[i] == UInt8(ascii: "-") { negative = true; i += 1 }

    // Significant digits of integer and fraction parts, leading zeros dropped, as a digit list;
    // `scale` is the power of ten they are multiplied by.
    var digits: [UInt8] = []
    var scale = 0
    while i < n, text[i] >= UInt8(ascii: "0"), text[i] <= UInt8(ascii: "9") {
        if !(digits.isEmpty && text[i] == UInt8(ascii: "0")) { digits.append(text[i] &- UInt8(ascii: "0")) }
        i += 1
    }
    if i < n && text[i] == UInt8(ascii: ".") {
        i += 1
        while i < n, text[i] >= UInt8(ascii: "0"), text[i] <= UInt8(ascii: "9") {
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
        var exponent = 0
        while i < n, text[i] >= UInt8(ascii: "0"), text[i] <= UInt8(ascii: "9") {
            // Saturate: any exponent beyond a million is equally out of range (or zero).
            exponent = min(exponent * 10 + Int(text[i] &- UInt8(ascii: "0")), 1_000_000)
            i += 1
        }
        scale += exponentNegative ? -exponent : exponent
    }
    // A zero mantissa is 0 whatever the scale (and "-0" is 0).
    if digits.isEmpty { return .value(0) }
    // Trailing zeros absorb negative scale: 12.50e1 = 1250 × 10^-1 = 125.
    while scale < 0, let last = digits.last, last == 0 {
        digits.removeLast()
        scale += 1
    }
    if negative { return .negative }
    if scale < 0 { return .notAnInteger }
    // maximum < 2^64 has at most 20 digits.
    if digits.count + scale > 20 { return .tooLarge }
    var value: UInt64 = 0
    for digit in digits + [UInt8](repeating: 0, count: scale) {
        let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
        if overflow1 || overflow2 { return .tooLarge }
        value = sum
    }
    return value > maximum ? .tooLarge : .value(value)
}
