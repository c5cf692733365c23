import CUTF8Proc

/// What one mapped scalar does to word splitting (rules 2–4 of the module documentation).
enum ScalarRole {
    /// A word character that joins the word around it (letters, numbers, spacing marks).
    case word
    /// A word character that is a word of its own (ideographs and kana, rule 4).
    case ownWord
    /// A nonspacing or enclosing mark: dropped, and neither splits nor starts a word.
    case transparent
    /// U+0027, U+2019 or U+02BC: joins two word characters, separates otherwise (rule 3).
    case apostrophe
    /// Anything else: ends the current word.
    case separator
}

/// Rule 2 and rule 4 for one scalar, via utf8proc. Everything that touches C lives here and in
/// ``WordSplitter``; the scalar values are `Int32` because that is utf8proc's code point type.
enum ScalarMapping {
    /// Room for the mapping of one scalar. The longest mapping in utf8proc 2.8 is 18 scalars
    /// (U+FDFA ARABIC LIGATURE SALLALLAHOU ALAYHE WASALLAM); ``map(_:into:capacity:)`` reports
    /// a longer one so that callers can retry with a larger buffer instead of trusting this.
    static let capacity = 32

    /// Rule 2: compatibility decomposition, full case folding, default-ignorables removed.
    /// DECOMPOSE (not COMPOSE) because marks must be separate scalars to be dropped; words are
    /// recomposed afterwards with ``composeOptions``.
    @inline(__always)
    static var decomposeOptions: utf8proc_option_t {
        utf8proc_option_t(rawValue: UTF8PROC_COMPAT.rawValue | UTF8PROC_CASEFOLD.rawValue
            | UTF8PROC_DECOMPOSE.rawValue | UTF8PROC_IGNORE.rawValue)
    }

    /// Canonical composition of a word; STABLE keeps the composition exclusions of Unicode's
    /// versioning stability policy, i.e. the result is real NFC.
    @inline(__always)
    static var composeOptions: utf8proc_option_t {
        utf8proc_option_t(rawValue: UTF8PROC_COMPOSE.rawValue | UTF8PROC_STABLE.rawValue)
    }

    /// Writes the rule 2 mapping of `scalar` into `buffer` (room for `capacity` scalars).
    ///
    /// Returns the number of scalars of the mapping; 0 for a default-ignorable scalar. If the
    /// result exceeds `capacity`, the buffer content is undefined and the caller must retry
    /// with at least that much room. Complexity: O(length of the mapping).
    @inline(__always)
    static func map(_ scalar: UInt32, into buffer: UnsafeMutablePointer<Int32>, capacity: Int) -> Int {
        let count = utf8proc_decompose_char(Int32(bitPattern: scalar), buffer, capacity,
                                            decomposeOptions, nil)
        // Negative results are errors for invalid options or unassigned code points with
        // REJECTNA; neither applies, but "maps to nothing" is the safe reading.
        return max(count, 0)
    }

    /// The role of an ASCII byte, and its case-folded value. ASCII maps to itself under rule 2
    /// except that A–Z fold to a–z, and no ASCII scalar is default-ignorable, which is what
    /// makes the byte-level fast path in ``WordSplitter`` exact.
    @inline(__always)
    static func asciiRole(_ byte: UInt8) -> (role: ScalarRole, folded: UInt8) {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return (.word, byte)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return (.word, byte | 0x20)
        case UInt8(ascii: "'"):
            return (.apostrophe, byte)
        default:
            return (.separator, byte)
        }
    }

    /// The role of a non-ASCII scalar produced by ``map(_:into:capacity:)``, and whether it has
    /// a non-zero canonical combining class (then the word needs canonical reordering before
    /// composition, because `utf8proc_decompose_char` works one scalar at a time and does not
    /// reorder; a few spacing marks, e.g. Javanese pangkon U+A9C0, have a class of 9).
    @inline(__always)
    static func classify(_ value: Int32) -> (role: ScalarRole, isNonStarter: Bool) {
        // U+02BC is Lm; it must be caught before the category decides it is a letter.
        if value == 0x2019 || value == 0x02BC { return (.apostrophe, false) }
        let property = utf8proc_get_property(value).pointee
        let category = utf8proc_category_t(rawValue: UInt32(truncatingIfNeeded: property.category))
        switch category {
        case UTF8PROC_CATEGORY_LU, UTF8PROC_CATEGORY_LL, UTF8PROC_CATEGORY_LT,
             UTF8PROC_CATEGORY_LM, UTF8PROC_CATEGORY_LO, UTF8PROC_CATEGORY_MC,
             UTF8PROC_CATEGORY_ND, UTF8PROC_CATEGORY_NL, UTF8PROC_CATEGORY_NO:
            let role: ScalarRole = isWrittenWithoutSpaces(value) ? .ownWord : .word
            return (role, property.combining_class != 0)
        case UTF8PROC_CATEGORY_MN, UTF8PROC_CATEGORY_ME:
            return (.transparent, false)
        default:
            return (.separator, false)
        }
    }

    /// The canonical combining class of a mapped scalar (0 for starters).
    @inline(__always)
    static func combiningClass(_ value: Int32) -> Int16 {
        utf8proc_get_property(value).pointee.combining_class
    }

    /// Rule 4: ideographs and kana, each a word of its own. Only asked about word characters
    /// that came out of rule 2, so halfwidth katakana are already fullwidth and punctuation
    /// inside these blocks (・, ゠) has already been classified as a separator.
    @inline(__always)
    static func isWrittenWithoutSpaces(_ value: Int32) -> Bool {
        switch value {
        case 0x3005...0x3007,   // 々 〆 〇: iteration mark, closing mark, ideographic zero
             0x3021...0x3029,   // Hangzhou numerals
             0x3038...0x303B,   // Hangzhou numerals 10–30, vertical iteration mark, masu mark
             0x3040...0x30FF,   // Hiragana, Katakana (includes ー U+30FC, see rule 4)
             0x31F0...0x31FF,   // Katakana Phonetic Extensions
             0x3400...0x4DBF,   // CJK Unified Ideographs Extension A
             0x4E00...0x9FFF,   // CJK Unified Ideographs
             0xF900...0xFAFF,   // CJK Compatibility Ideographs (the few without a decomposition)
             0x1AFF0...0x1B16F, // Kana Extended-B, Kana Supplement, Kana Extended-A, Small Kana
             0x20000...0x3FFFF: // Supplementary and Tertiary Ideographic Planes: Extensions B–H,
                                // Compatibility Ideographs Supplement
            return true
        default:
            return false
        }
    }
}
