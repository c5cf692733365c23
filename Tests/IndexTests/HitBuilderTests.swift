import Foundation
import Storage
import XCTest
@testable import Index

final class HitBuilderTests: XCTestCase {
    /// A title word's spelling is cut from the stored UTF-8 by its UTF-16 range, without a `String`
    /// of the title: the cut must equal `String`'s own, for every range of titles with 1- to
    /// 4-byte scalars (the 4-byte ones are two UTF-16 units).
    func testSubstringByUTF16RangeEqualsStringsOwn() {
        for title in ["São Paulo", "👍 Zürich 東京", "a", "", "Ǆemal 𝒳y 🇫🇷 end", "Straße 2²"] {
            let utf8 = Array(title.utf8)
            let units = title.utf16.count
            Bytes.withView(of: utf8) { bytes in
                for lower in 0...units {
                    for upper in lower...units {
                        let utf16 = title.utf16
                        let start = utf16.index(utf16.startIndex, offsetBy: lower)
                        let end = utf16.index(utf16.startIndex, offsetBy: upper)
                        // String's cut, where both ends fall on scalar boundaries; nil otherwise.
                        let onBoundaries = start.samePosition(in: title.unicodeScalars) != nil
                            && end.samePosition(in: title.unicodeScalars) != nil
                        let cut = HitBuilder.slice(utf8: bytes, utf16: lower..<upper)?.string
                        if onBoundaries {
                            XCTAssertEqual(cut, String(title.unicodeScalars[start..<end]), "\(title) \(lower)..<\(upper)")
                        } else {
                            XCTAssertNil(cut, "\(title) \(lower)..<\(upper) splits a surrogate pair")
                        }
                    }
                }
                XCTAssertNil(HitBuilder.slice(utf8: bytes, utf16: 0..<(units + 1)), "past the end")
            }
        }
    }
}
