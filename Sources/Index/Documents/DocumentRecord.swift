import Catalog
import Storage

/// The stored form of one entry: the value of the `docs` database, keyed by document number.
///
/// Layout (version 1), hot fields first so that verifying a candidate decodes only a prefix:
/// ```
/// u8      version = 1
/// varint  weight
/// string  id
/// string  sortTitle              analysed title words joined by " "
/// bytes   n × (varint start, varint length), varint-length-prefixed
///                                UTF-16 range in `title` of each word of `sortTitle`
/// string  title
/// string  aliasWords             distinct analysed alias words not in the title, joined by " "
/// bytes   n × varint, varint-length-prefixed
///                                for each alias word, the index of the alias it was first seen in
/// string  descriptionWords       distinct analysed description words not in title/aliases, " "-joined
/// varint  n, n × string          categories
/// varint  n, n × string          aliases, as written
/// u8 present, [string]           description, as written
/// varint  n, n × (string, string) attributes, sorted by key
/// ```
/// Words never contain a space (spaces separate words), so " "-joined lists are unambiguous.
enum DocumentRecord {
    static let version: UInt8 = 1

    static func encode(_ doc: AnalysedEntry, into writer: inout ByteWriter) {
        let entry = doc.entry
        writer.byte(version)
        writer.varint(entry.weight)
        writer.string(entry.id)
        writer.string(doc.sortTitle)
        var ranges = ByteWriter()
        for range in doc.titleRanges {
            ranges.varint(range.lowerBound)
            ranges.varint(range.count)
        }
        writer.lengthPrefixed(ranges.bytes)
        writer.string(entry.title)
        writer.string(doc.aliasWords.joined(separator: " "))
        var sources = ByteWriter()
        for source in doc.aliasSources { sources.varint(source.alias) }
        writer.lengthPrefixed(sources.bytes)
        writer.string(doc.descriptionWords.joined(separator: " "))
        writer.varint(doc.categories.count)
        for category in doc.categories { writer.string(category) }
        writer.varint(entry.aliases.count)
        for alias in entry.aliases { writer.string(alias) }
        if let description = entry.description {
            writer.byte(1)
            writer.string(description)
        } else {
            writer.byte(0)
        }
        let attributes = entry.attributes.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        writer.varint(attributes.count)
        for (key, value) in attributes {
            writer.string(key)
            writer.string(value)
        }
    }
}

/// A zero-copy view of a stored entry, valid inside the read transaction that fetched it.
///
/// Decoding the view reads only the offsets of the hot fields; strings are materialised only for
/// the few hits a response returns.
struct DocumentView {
    let docnum: UInt32
    let weight: UInt64
    let id: Bytes
    let sortTitle: Bytes
    /// The encoded UTF-16 ranges of the title words.
    private let titleRanges: Bytes
    let title: Bytes
    let aliasWords: Bytes
    /// The encoded sources of the alias words.
    private let aliasSources: Bytes
    let descriptionWords: Bytes
    /// Offset of the categories count within `record`.
    private let categoriesOffset: Int
    private let record: Bytes

    init(docnum: UInt32, record: Bytes) throws(IndexError) {
        var reader = ByteReader(record)
        guard try reader.byte() == DocumentRecord.version else {
            throw .corrupt("document \(docnum) has an unknown record version")
        }
        self.docnum = docnum
        self.record = record
        weight = try reader.varint()
        id = try reader.slice()
        sortTitle = try reader.slice()
        titleRanges = try reader.slice()
        title = try reader.slice()
        aliasWords = try reader.slice()
        aliasSources = try reader.slice()
        descriptionWords = try reader.slice()
        categoriesOffset = reader.offset
    }

    /// Calls `body` with the UTF-16 range of each title word, in the order of `sortTitle`'s words,
    /// until it returns false. Decoded in place: a hit's highlights and a completion's spelling
    /// read them for every answer, so they must not allocate.
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
    func forEachCategory(_ body: (Bytes) throws -> Bool) throws {
        var reader = ByteReader(record, offset: categoriesOffset)
        let count = try reader.int()
        for _ in 0..<count {
            if try !body(try reader.slice()) { return }
        }
    }

    /// The encoded category list (count, then each name length-prefixed), for comparing two
    /// documents' categories as bytes without decoding them.
    var categoryList: Bytes {
        get throws {
            var reader = ByteReader(record, offset: categoriesOffset)
            let count = try reader.int()
            for _ in 0..<count { _ = try reader.slice() }
            return record[range: categoriesOffset..<reader.offset]
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

    var categories: [String] {
        get throws {
            var result: [String] = []
            try forEachCategory { result.append($0.string); return true }
            return result
        }
    }

    /// The index of the alias the `index`-th alias word was first seen in.
    func aliasSource(_ index: Int) throws(IndexError) -> Int? {
        var reader = ByteReader(aliasSources)
        for _ in 0..<index {
            guard !reader.isAtEnd else { return nil }
            _ = try reader.varint()
        }
        guard !reader.isAtEnd else { return nil }
        return try reader.int()
    }

    /// The `index`-th alias as written.
    func alias(_ index: Int) throws -> String? {
        var found: String?
        var position = 0
        try forEachAlias { alias in
            if position == index { found = alias.string; return false }
            position += 1
            return true
        }
        return found
    }

    /// Calls `body` with each alias as written, until it returns false.
    func forEachAlias(_ body: (Bytes) throws -> Bool) throws {
        var reader = ByteReader(record, offset: categoriesOffset)
        for _ in 0..<(try reader.int()) { try reader.skipSlice() }
        for _ in 0..<(try reader.int()) {
            if try !body(try reader.slice()) { return }
        }
    }

    /// The whole entry, as it was indexed.
    func materialize() throws(IndexError) -> CatalogEntry {
        var reader = ByteReader(record, offset: categoriesOffset)
        var categories: [String] = []
        for _ in 0..<(try reader.int()) { categories.append(try reader.string()) }
        var aliases: [String] = []
        for _ in 0..<(try reader.int()) { aliases.append(try reader.string()) }
        let description: String? = try reader.byte() == 1 ? try reader.string() : nil
        var attributes: [String: String] = [:]
        for _ in 0..<(try reader.int()) {
            let key = try reader.string()
            attributes[key] = try reader.string()
        }
        return CatalogEntry(id: id.string, title: title.string, categories: categories, weight: weight,
                            aliases: aliases, description: description, attributes: attributes)
    }

    /// Attributes sorted by key (the stored order).
    func attributes() throws -> [Attribute] {
        var result: [Attribute] = []
        try forEachAttribute { key, value in result.append(Attribute(key: key.string, value: value.string)) }
        return result
    }

    /// Calls `body` with each attribute's key and value, sorted by key (the stored order).
    func forEachAttribute(_ body: (_ key: Bytes, _ value: Bytes) throws -> Void) throws {
        var reader = ByteReader(record, offset: categoriesOffset)
        for _ in 0..<(try reader.int()) { try reader.skipSlice() }
        for _ in 0..<(try reader.int()) { try reader.skipSlice() }
        if try reader.byte() == 1 { try reader.skipSlice() }
        for _ in 0..<(try reader.int()) {
            let key = try reader.slice()
            try body(key, try reader.slice())
        }
    }
}
