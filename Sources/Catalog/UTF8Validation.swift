// UTF-8 validation of whole lines. We validate every byte ourselves instead of relying on yajl's
// string validation because (a) bytes outside strings must be checked too, (b) the error must name
// the byte, which yajl does not report, and (c) one pass with an 8-bytes-at-a-time ASCII fast path
// is cheaper than yajl's per-character check, which we therefore switch off.

/// The offset (from 0) of the first byte that does not start a well-formed UTF-8 sequence, or nil
/// when all of `bytes` is valid UTF-8.
///
/// "Well-formed" is Unicode's definition (Table 3-7): no overlong forms, no surrogates
/// (U+D800–U+DFFF), nothing above U+10FFFF, no truncated sequences.
///
/// Complexity: O(n); ASCII runs are checked 8 bytes per step.
func firstInvalidUTF8Offset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let base = bytes.baseAddress else { return nil }
    let count = bytes.count
    var i = 0
    while i < count {
        // ASCII fast path: skip 8 bytes at a time while no byte has its high bit set.
        while i + 8 <= count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        guard i < count else { return nil }
        let lead = base[i]
        if lead < 0x80 {
            i += 1
            continue
        }
        // The allowed range of the second byte depends on the lead byte; later bytes are 80...BF.
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0          // no overlong 3-byte forms
        case 0xED: length = 3; secondHigh = 0x9F         // no surrogates
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xF0: length = 4; secondLow = 0x90          // no overlong 4-byte forms
        case 0xF4: length = 4; secondHigh = 0x8F         // nothing above U+10FFFF
        case 0xF1...0xF3: length = 4
        default: return i                                // 80...C1 and F5...FF never start a sequence
        }
        guard i + length <= count else { return i }
        let second = base[i + 1]
        guard second >= secondLow && second <= secondHigh else { return i }
        var k = 2
        while k < length {
            guard base[i + k] & 0xC0 == 0x80 else { return i }
            k += 1
        }
        i += length
    }
    return nil
}
