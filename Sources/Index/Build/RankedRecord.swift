import Analysis
import Foundation

/// One entry of the rank-ordered sort as the documents pass reads it: its key (``key(weight:sortTitle:id:into:)``)
/// and its value (``encode(_:vocabulary:into:)``). Views of the sorter's bytes: valid until its
/// next record.
struct RankedRecord {
    let key: UnsafeRawBufferPointer
    let value: UnsafeRawBufferPointer
    /// Where the sort title ends in `key` (its 0x00), found once.
    private let titleEnd: Int

    init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        self.key = key
        self.value = value
        // The 0x00 is there: ``key(weight:sortTitle:id:into:)`` wrote it.
        let title = key.baseAddress! + 8
        titleEnd = 8 + title.distance(to: UnsafeRawPointer(memchr(title, 0, key.count - 8)!))
    }

    var sortTitle: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: key[8..<titleEnd]) }
    var id: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: key[(titleEnd + 1)...]) }

    private func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: value.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    private var recordLength: Int { Int(u32(0)) }
    var record: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: value[4..<(4 + recordLength)]) }
    /// The first title word's term number, if the title has a word.
    var firstWord: UInt32? { u32(4 + recordLength) == 0 ? nil : u32(4 + recordLength) - 1 }

    /// The term numbers of list `index`: 0 name terms, 1 description words, 2 variant words, 3 tokens.
    func list(_ index: Int) -> LazyMapSequence<Range<Int>, UInt32> {
        var offset = 8 + recordLength
        for _ in 0..<index { offset += 4 + 4 * Int(u32(offset)) }
        let start = offset + 4
        return (0..<Int(u32(offset))).lazy.map { u32(start + 4 * $0) }
    }

    /// The static rank order as bytes: weight descending (its complement, u64be), the sort title,
    /// 0x00, the id. Byte order of these keys is rank order: no analysed word contains 0x00 (see
    /// ``TitleKey``), so a title that is a prefix of another ends first, and the ids, last, compare
    /// as themselves. Ids are unique, so keys are too.
    static func key(weight: UInt64, sortTitle: ArraySlice<UInt8>, id: String, into key: inout [UInt8]) {
        withUnsafeBytes(of: (~weight).bigEndian) { key.append(contentsOf: $0) }
        key.append(contentsOf: sortTitle)
        key.append(0x00)
        key.append(contentsOf: id.utf8)
    }

    /// A ranked record's value: u32le fields, `record length, record, first title word + 1 (0: none),
    /// then four counted lists of term numbers: name terms, description words, variant words,
    /// tokens`. The words are interned here, counting their postings.
    static func encode(_ document: BuildDocument, vocabulary: inout BuildVocabulary, into value: inout ByteWriter) {
        value.u32le(UInt32(document.record.count))
        value.raw(document.record)
        let firstWord = document.firstWord
        value.u32le(firstWord.isEmpty ? 0 : firstWord.withUnsafeBytes { vocabulary.intern($0, .none) + 1 })
        // The lists are walked here, not handed over as `document.forEach…` functions: each such
        // function value held a copy of the document (three copies and releases an entry).
        func list(_ words: BuildDocument.WordList?, _ field: BuildVocabulary.Field) {
            let countAt = value.bytes.count
            value.u32le(0)
            var n: UInt32 = 0
            if let words {
                document.forEachWord(of: words) {
                    value.u32le(vocabulary.intern($0, field))
                    n += 1
                }
            } else {
                for token in document.tokens {
                    value.u32le(vocabulary.intern(token))
                    n += 1
                }
            }
            value.patchU32le(at: countAt, n)
        }
        list(.names, .name)
        list(.description, .description)
        list(.variants, .none)
        list(nil, .name)   // the tokens
    }
}
