#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte order of two byte strings (a prefix first): negative, zero or positive — the order of
/// UTF-8 strings by code point, which every ranked field of the API is compared in. O(common
/// prefix), one `memcmp`.
@inlinable
public func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0 {
        let order = memcmp(a.baseAddress!, b.baseAddress!, common)
        if order != 0 { return Int(order) }
    }
    return a.count - b.count
}
