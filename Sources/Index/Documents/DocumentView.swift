import Catalog
import Storage

/// A zero-copy view of a stored entry (``DocumentRecord``, any version), valid inside the read
/// transaction that fetched it.
///
/// Decoding the view reads only the offsets of the hot fields; strings are materialised only for
/// the few hits a response returns, and a version 2 record lends its hit fields whole
/// (``withEncodedHitFields(_:)``).
struct DocumentView {
    let docnum: UInt32
    /// Version 2 or 3: the hit head (``HitFields``) is stored; false for a version 1 record.
    private let hasHitHead: Bool
    /// Version 3: attribute keys are numbered by `keys`.
    private let numbersKeys: Bool
    /// The generation's attribute keys (``AttributeKeys``), for a version 3 record. Unretained: a
    /// view lives inside a read transaction of its generation, which holds the table for its
    /// whole life, and a view is copied into candidate heaps for every document a query reads, so
    /// it stays a plain value (no reference count to touch on a copy).
    private let unretainedKeys: Unmanaged<AttributeKeys>?
    let weight: UInt64
    private let record: Bytes
    // Where each hot field lies in `record`, as 32-bit offsets rather than `Bytes` (16 bytes
    // each): a view is copied into candidate heaps and answers for every document a query
    // reads, and at 176 bytes those copies were a sixth of a one-word keystroke (memmove).
    // Now 96 bytes. A record is at most a catalog line (``CatalogLimits``, 1 MiB by default),
    // and a record past 4 GiB is refused as corrupt rather than truncated.
    private let idSpan: Span
    private let titleSpan: Span
    private let sortTitleSpan: Span
    /// The encoded UTF-16 ranges of the title words.
    private let titleRangesSpan: Span
    private let aliasWordsSpan: Span
    /// The encoded sources of the alias words.
    private let aliasSourcesSpan: Span
    /// Version 2: where the hit head starts (it ends at `headEnd`).
    private let headStart: UInt32
    /// Where the categories start within `record`: version 1, at their count; version 2, at the
    /// first field after the title in the hit head.
    private let categoriesOffset: UInt32
    /// Version 2: where the hit head ends; where the cold part (the hit attributes, then the
    /// description's words) starts. Version 1: where the description's words start.
    private let headEnd: UInt32
    private let coldOffset: UInt32

    /// A field's bytes in the record: `start..<end`.
    private struct Span {
        let start: UInt32
        let end: UInt32

        static let empty = Span(start: 0, end: 0)

        init(start: UInt32, end: UInt32) {
            self.start = start
            self.end = end
        }

        /// Reads a length-prefixed field (``ByteReader/slice()``) and returns where it lies.
        /// The record's size was checked to fit 32 bits, so every offset in it does.
        @inline(__always)
        init(reading reader: inout ByteReader) throws(IndexError) {
            let count = try reader.slice().count
            self.init(start: UInt32(truncatingIfNeeded: reader.offset - count), end: UInt32(truncatingIfNeeded: reader.offset))
        }
    }

    @inline(__always)
    private func bytes(_ span: Span) -> Bytes {
        record[range: Int(span.start)..<Int(span.end)]
    }

    var id: Bytes { bytes(idSpan) }
    var title: Bytes { bytes(titleSpan) }
    var sortTitle: Bytes { bytes(sortTitleSpan) }
    var aliasWords: Bytes { bytes(aliasWordsSpan) }
    private var titleRanges: Bytes { bytes(titleRangesSpan) }
    private var aliasSources: Bytes { bytes(aliasSourcesSpan) }
    /// Version 2: the hit head (``HitFields``); nil in a version 1 record.
    private var hitHead: Bytes? { hasHitHead ? record[range: Int(headStart)..<Int(headEnd)] : nil }

    /// - Parameter keys: the attribute keys of the record's generation (read by version 3 records).
    init(docnum: UInt32, record: Bytes, keys: AttributeKeys? = nil) throws(IndexError) {
        var reader = ByteReader(record)
        let version = try reader.byte()
        self.docnum = docnum
        self.record = record
        unretainedKeys = keys.map { Unmanaged.passUnretained($0) }
        numbersKeys = version == 3
        guard record.count <= Int(UInt32.max) else { throw .corrupt("document \(docnum): a record past 4 GiB") }
        switch version {
        case 2, 3:
            hasHitHead = true
            weight = try reader.varint()
            let head = try reader.slice()
            let headEnd = reader.offset
            self.headEnd = UInt32(headEnd)
            headStart = UInt32(headEnd - head.count)
            // The id and title lead the head (either may be absent: proto3 leaves out empty strings).
            var fields = ByteReader(record, offset: headEnd - head.count)
            if fields.offset < headEnd, record[fields.offset] == HitFields.idTag {
                _ = try fields.byte()
                idSpan = try Span(reading: &fields)
            } else {
                idSpan = .empty
            }
            if fields.offset < headEnd, record[fields.offset] == HitFields.titleTag {
                _ = try fields.byte()
                titleSpan = try Span(reading: &fields)
            } else {
                titleSpan = .empty
            }
            guard fields.offset <= headEnd else { throw .corrupt("document \(docnum): hit fields overrun") }
            categoriesOffset = UInt32(fields.offset)
            sortTitleSpan = try Span(reading: &reader)
            titleRangesSpan = try Span(reading: &reader)
            aliasWordsSpan = try Span(reading: &reader)
            aliasSourcesSpan = try Span(reading: &reader)
            coldOffset = UInt32(reader.offset)
        case 1:
            hasHitHead = false
            weight = try reader.varint()
            idSpan = try Span(reading: &reader)
            sortTitleSpan = try Span(reading: &reader)
            titleRangesSpan = try Span(reading: &reader)
            titleSpan = try Span(reading: &reader)
            aliasWordsSpan = try Span(reading: &reader)
            aliasSourcesSpan = try Span(reading: &reader)
            headStart = 0
            headEnd = 0
            coldOffset = UInt32(reader.offset)
            try reader.skipSlice()
            categoriesOffset = UInt32(reader.offset)
        default:
            throw .corrupt("document \(docnum) has an unknown record version \(version)")
        }
    }

    /// Version 2: the hit attributes, then the description's words (read only when asked for:
    /// they may be long, and a suggest never asks).
    private func coldParts() throws(IndexError) -> (attributes: Bytes, descriptionWords: Bytes, aliasesOffset: Int) {
        var reader = ByteReader(record, offset: Int(coldOffset))
        let attributes = try reader.slice()
        let words = try reader.slice()
        return (attributes, words, reader.offset)
    }

    /// Distinct analysed description words not in the title or aliases, " "-joined.
    var descriptionWords: Bytes {
        get throws(IndexError) {
            if hasHitHead { return try coldParts().descriptionWords }
            var reader = ByteReader(record, offset: Int(coldOffset))
            return try reader.slice()
        }
    }

    /// Versions 2 and 3: calls `body` with the protobuf encoding of the hit's fields 1–4 and then
    /// 5 (``HitFields``), in two runs to be joined in order: the head as stored, then the
    /// attributes, as stored (version 2) or, version 3, written into a scratch buffer in one pass
    /// (each entry's tag and length, its key's framing from the table, its value as stored). False,
    /// without calling it, for a version 1 record.
    func withEncodedHitFields(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard let hitHead else { return false }
        try hitHead.withUnsafeBytes(body)
        let attributes = try coldParts().attributes
        guard !attributes.isEmpty else { return true }
        guard numbersKeys else {
            try attributes.withUnsafeBytes(body)
            return true
        }
        // One pass into scratch memory (on the stack for all but huge attributes), then one run:
        // a run per piece cost more than the copies (cities: four attributes a hit).
        let keys = keyFramings
        // An attribute's stored bytes (number or key, value) grow by its entry's tag and length
        // (at most 6 bytes) and its key's framing (at most `maximumFraming`), less its number;
        // each is at least 2 bytes.
        let bound = attributes.count + (attributes.count / 2 + 1) * (6 + keys.maximumFraming)
        try withUnsafeTemporaryAllocation(byteCount: bound, alignment: 1) { out in
            let count = try Self.writeAttributes(attributes, framings: keys.framings, ends: keys.ends, into: out)
            try body(UnsafeRawBufferPointer(rebasing: out[..<count]))
        }
        return true
    }

    /// Writes version 3 attributes (`stored`) as `EntryHit` field 5 into `out`, which holds the
    /// bound ``withEncodedHitFields(_:)`` allows; returns the bytes written.
    private static func writeAttributes(_ attributes: Bytes, framings: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<Int>,
                                        into out: UnsafeMutableRawBufferPointer) throws(IndexError) -> Int {
        var at = 0
        var reader = ByteReader(attributes)
        func put(_ byte: UInt8) { out[at] = byte; at += 1 }
        func putVarint(_ value: Int) {
            var value = value
            while value >= 0x80 { put(UInt8(truncatingIfNeeded: value) | 0x80); value >>= 7 }
            put(UInt8(value))
        }
        func copy(_ from: UnsafeRawBufferPointer, _ range: Range<Int>) {
            guard !range.isEmpty else { return }
            (out.baseAddress! + at).copyMemory(from: from.baseAddress! + range.lowerBound, byteCount: range.count)
            at += range.count
        }
        /// The next length-prefixed field: its length and bytes, as stored.
        func field() throws(IndexError) -> Range<Int> {
            let start = reader.offset
            try reader.skipSlice()
            return start..<reader.offset
        }
        // The standard library's closures rethrow untyped errors: carry the typed one out.
        let written: Result<Int, IndexError> = attributes.withUnsafeBytes { stored in
            Result { () throws(IndexError) -> Int in
                while !reader.isAtEnd {
                    let number = try reader.int()
                    if number > 0 {
                        guard let framing = AttributeKeys.framingRange(number, ends: ends) else {
                            throw .corrupt("attributes: key \(number) is not in the table")
                        }
                        let value = try field()
                        put(HitFields.attributeTag)
                        putVarint(framing.count + value.count)
                        copy(framings, framing)
                        copy(stored, value)
                    } else {
                        // A key written out is stored as protobuf writes it after its tag: length, bytes.
                        let key = try field()
                        let value = try field()
                        put(HitFields.attributeTag)
                        putVarint(2 + key.count + value.count)   // the key's and the value's tags
                        put(HitFields.entryKeyTag)
                        copy(stored, key)
                        put(HitFields.entryValueTag)
                        copy(stored, value)
                    }
                }
                return at
            }
        }
        return try written.get()
    }

    /// The framings of the generation's attribute keys (``AttributeKeys/framings``), read with no
    /// reference count touched: the table's buffers live as long as it does, longer than the view.
    /// A view made without a table reads keys written out and refuses numbers (the empty table's).
    @inline(__always)
    private var keyFramings: (framings: UnsafeRawBufferPointer, ends: UnsafeBufferPointer<Int>, maximumFraming: Int) {
        (unretainedKeys ?? Unmanaged.passUnretained(AttributeKeys.empty))._withUnsafeGuaranteedRef {
            ($0.framings, $0.framingEnds, $0.maximumFraming)
        }
    }

    /// Calls `body` with the UTF-16 range of each title word, in the order of `sortTitle`'s words,
    /// until it returns false. Decoded in place: a hit's highlights and a completion's spelling
    /// read them for every answer, so they must not allocate.
    @inline(__always)
    func forEachTitleWordRange(_ body: (Range<Int>) throws -> Bool) throws {
        var reader = ByteReader(titleRanges)
        while !reader.isAtEnd {
            let start = try reader.int()
            let length = try reader.int()
            if try !body(start..<(start + length)) { return }
        }
    }

    /// The UTF-16 range in `title` of the `index`-th word of `sortTitle`, if there is one.
    func titleWordRange(at index: Int) throws -> Range<Int>? {
        var position = 0
        var found: Range<Int>?
        try forEachTitleWordRange { range in
            if position == index { found = range; return false }
            position += 1
            return true
        }
        return found
    }

    /// Calls `body` with each category's bytes until it returns false.
    @inline(__always)
    func forEachCategory(_ body: (Bytes) throws -> Bool) throws {
        var cursor = try categoryCursor()
        while let category = try cursor.next() {
            if try !body(category) { return }
        }
    }

    /// Reads the categories in stored order, in either record version.
    private struct CategoryCursor {
        var reader: ByteReader
        /// Version 1: categories left to read; version 2: nil (the list ends at the first field
        /// that is not a category, or at `end`).
        var remaining: Int?
        let end: Int

        @inline(__always)
        mutating func next() throws(IndexError) -> Bytes? {
            if var remaining {
                guard remaining > 0 else { return nil }
                remaining -= 1
                self.remaining = remaining
                return try reader.slice()
            }
            guard reader.offset < end, reader.bytes[reader.offset] == HitFields.categoryTag else { return nil }
            _ = try reader.byte()
            return try reader.slice()
        }
    }

    @inline(__always)
    private func categoryCursor() throws(IndexError) -> CategoryCursor {
        var reader = ByteReader(record, offset: Int(categoriesOffset))
        if hasHitHead { return CategoryCursor(reader: reader, remaining: nil, end: Int(headEnd)) }
        let count = try reader.int()
        return CategoryCursor(reader: reader, remaining: count, end: record.count)
    }

    /// The encoded category list, for comparing two documents' categories as bytes without
    /// decoding them: equal lists have equal bytes between records of one version, and a
    /// generation writes one version (``DocumentRecord``).
    var categoryList: Bytes {
        get throws {
            var cursor = try categoryCursor()
            while try cursor.next() != nil {}
            return record[range: Int(categoriesOffset)..<cursor.reader.offset]
        }
    }

    func hasCategory(_ name: [UInt8]) throws -> Bool {
        var found = false
        try forEachCategory { category in
            if category.elementsEqual(name) { found = true }
            return !found
        }
        return found
    }

    /// Whether the document carries a token: its category, or its attribute's value (bytes).
    func carries(_ filter: TokenFilter) throws -> Bool {
        guard let key = filter.attribute else { return try hasCategory(filter.value) }
        var found = false
        try forEachAttribute { k, v in
            if !found, k.elementsEqual(key), v.elementsEqual(filter.value) { found = true }
        }
        return found
    }

    /// The tokens the document is listed and counted under (see ``EntryTokens``).
    func tokens(filterable: [String]) throws -> [SearchToken] {
        var attributes: [(key: String, value: String)] = []
        if !filterable.isEmpty { try forEachAttribute { attributes.append((text($0), text($1))) } }
        return EntryTokens.of(categories: try categories, attributes: attributes, filterable: filterable)
    }

    var categories: [String] {
        get throws {
            var result: [String] = []
            try forEachCategory { result.append($0.string); return true }
            return result
        }
    }

    /// The index of the alias the `index`-th alias word was first seen in, and (version 2) the
    /// word's UTF-16 range in it.
    func aliasSource(_ index: Int) throws(IndexError) -> (alias: Int, range: Range<Int>?)? {
        var reader = ByteReader(aliasSources)
        let ranged = hasHitHead
        for _ in 0..<index {
            guard !reader.isAtEnd else { return nil }
            _ = try reader.varint()
            if ranged {
                _ = try reader.varint()
                _ = try reader.varint()
            }
        }
        guard !reader.isAtEnd else { return nil }
        let alias = try reader.int()
        guard ranged else { return (alias, nil) }
        let start = try reader.int()
        return (alias, start..<(start + (try reader.int())))
    }

    /// The `index`-th alias as written.
    func alias(_ index: Int) throws -> Bytes? {
        var found: Bytes?
        var position = 0
        try forEachAlias { alias in
            if position == index { found = alias; return false }
            position += 1
            return true
        }
        return found
    }

    /// A reader positioned on the aliases' count.
    private func aliasesReader() throws(IndexError) -> ByteReader {
        if hasHitHead { return ByteReader(record, offset: try coldParts().aliasesOffset) }
        var cursor = try categoryCursor()
        while try cursor.next() != nil {}
        return cursor.reader
    }

    /// Calls `body` with each alias as written, until it returns false.
    func forEachAlias(_ body: (Bytes) throws -> Bool) throws {
        var reader = try aliasesReader()
        for _ in 0..<(try reader.int()) {
            if try !body(try reader.slice()) { return }
        }
    }

    /// The whole entry, as it was indexed.
    func materialize() throws(IndexError) -> CatalogEntry {
        var categories: [String] = []
        var cursor = try categoryCursor()
        while let category = try cursor.next() { categories.append(category.string) }
        var reader = try aliasesReader()
        var aliases: [String] = []
        for _ in 0..<(try reader.int()) { aliases.append(try reader.string()) }
        let description: String? = try reader.byte() == 1 ? try reader.string() : nil
        var attributes: [String: String] = [:]
        try forEachAttribute { key, value in attributes[text(key)] = text(value) }
        return CatalogEntry(id: id.string, title: title.string, categories: categories, weight: weight,
                            aliases: aliases, description: description, attributes: attributes)
    }

    /// Attributes sorted by key (the stored order).
    func attributes() throws -> [Attribute] {
        var result: [Attribute] = []
        try forEachAttribute { key, value in result.append(Attribute(key: text(key), value: text(value))) }
        return result
    }

    /// Calls `body` with each attribute's key and value, sorted by key (the stored order).
    func forEachAttribute(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) throws(IndexError) {
        func lend(_ key: Bytes, _ value: Bytes) {
            key.withUnsafeBytes { key in value.withUnsafeBytes { value in body(key, value) } }
        }
        if numbersKeys {
            let (framings, ends, _) = keyFramings
            var reader = ByteReader(try coldParts().attributes)
            while !reader.isAtEnd {
                let number = try reader.int()
                if number > 0 {
                    guard let framing = AttributeKeys.framingRange(number, ends: ends) else {
                        throw .corrupt("document \(docnum): attribute key \(number) is not in the table")
                    }
                    let key = UnsafeRawBufferPointer(rebasing: framings[AttributeKeys.keyRange(inFraming: framing)])
                    try reader.slice().withUnsafeBytes { body(key, $0) }
                } else {
                    let key = try reader.slice()
                    lend(key, try reader.slice())
                }
            }
            return
        }
        if hasHitHead {
            var reader = ByteReader(try coldParts().attributes)
            while !reader.isAtEnd {
                guard try reader.byte() == HitFields.attributeTag else { throw .corrupt("document \(docnum): unexpected field in the attributes") }
                var entry = ByteReader(try reader.slice())
                var key = record[range: 0..<0], value = record[range: 0..<0]
                while !entry.isAtEnd {
                    switch try entry.byte() {
                    case HitFields.entryKeyTag: key = try entry.slice()
                    case HitFields.entryValueTag: value = try entry.slice()
                    default: throw .corrupt("document \(docnum): unexpected field in an attribute")
                    }
                }
                lend(key, value)
            }
            return
        }
        var reader = try aliasesReader()
        for _ in 0..<(try reader.int()) { try reader.skipSlice() }
        if try reader.byte() == 1 { try reader.skipSlice() }
        for _ in 0..<(try reader.int()) {
            let key = try reader.slice()
            lend(key, try reader.slice())
        }
    }
}

private func text(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }
