import Catalog
import Storage

/// The stored form of one entry: the value of the `docs` database, keyed by document number.
///
/// Three layouts, told apart by their first byte. All put the hot fields first, so that verifying a
/// candidate decodes only a prefix; every generation writes one layout for all its records (the
/// one its format says, ``Schema/recordVersion``), so records of one generation compare byte-wise.
///
/// **Version 2** (generations built since hits are written from the map in one copy):
/// ```
/// u8      version = 2
/// varint  weight
/// bytes   hit head               the protobuf encoding of `typeahead.v1.EntryHit` fields 1–4 (id,
///                                title, categories, weight), see ``HitFields``
/// string  sortTitle              analysed title words joined by " "
/// bytes   n × (varint start, varint length), varint-length-prefixed
///                                UTF-16 range in `title` of each word of `sortTitle`
/// string  aliasWords             distinct analysed alias words not in the title, joined by " "
/// bytes   n × (varint alias, varint start, varint length), varint-length-prefixed
///                                for each alias word, the index of the alias it was first seen in
///                                and its UTF-16 range there (a completion's spelling is cut out
///                                of the alias without analysing it again)
/// bytes   hit attributes         EntryHit field 5 (attributes), encoded likewise
/// string  descriptionWords       distinct analysed description words not in title/aliases, " "-joined
/// varint  n, n × string          aliases, as written
/// u8 present, [string]           description, as written
/// ```
/// The two hit parts are what a response carries of the entry, already in the wire's encoding
/// (the encoding protobuf's own rules freeze: field numbers never change), so a node writes a hit
/// into its answer with two copies from the memory map. What verifying a candidate reads comes
/// first (id, title and categories lead the record, its words follow), so a suggest reads a
/// record's first cache line or two; the attributes, which only answers carry and may be long,
/// and the description's words, which only a search reads, come after.
///
/// **Version 3** (generations of layout 4 on): version 2 with the attribute keys numbered by the
/// generation's table (``AttributeKeys``) instead of written out. Only the hit attributes differ:
/// ```
/// bytes   attributes             n × (varint key, [string key if 0], string value), sorted by key
///                                bytes: key k ≥ 1 is the table's k-th, 0 a key written out
/// ```
/// A hit's field 5 is then re-framed in one pass (``DocumentView/withEncodedHitFields(_:)``): each
/// entry's tag and length, its key's framing from the table, its value as stored (its length and
/// bytes are protobuf's too).
///
/// **Version 1** (generations built before; still read, and written by updates to them):
/// ```
/// u8      version = 1
/// varint  weight
/// string  id
/// string  sortTitle
/// bytes   title word ranges      as in version 2
/// string  title
/// string  aliasWords
/// bytes   n × varint             for each alias word, the index of its alias (no range)
/// string  descriptionWords
/// varint  n, n × string          categories
/// varint  n, n × string          aliases, as written
/// u8 present, [string]           description, as written
/// varint  n, n × (string, string) attributes, sorted by key
/// ```
/// Words never contain a space (spaces separate words), so " "-joined lists are unambiguous.
enum DocumentRecord {
    /// The weight at the head of a record of either version (after its version byte), without
    /// decoding the rest.
    static func weight(_ record: Bytes) throws -> UInt64 {
        var reader = ByteReader(record)
        _ = try reader.byte()
        return try reader.varint()
    }

    /// - Parameter keys: version 3: the generation's table (keys it lacks are written out).
    static func encode(_ doc: AnalysedEntry, version: UInt8, keys: AttributeKeys = .empty, into writer: inout ByteWriter) {
        let entry = doc.entry
        writer.byte(version)
        writer.varint(entry.weight)
        let attributes = entry.attributes.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        if version == 1 {
            writer.string(entry.id)
        } else {
            writer.lengthPrefixed { HitFields.encodeHead(id: entry.id, title: entry.title, categories: doc.categories, weight: entry.weight, into: &$0) }
        }
        writer.lengthPrefixed(doc.sortTitle)
        writer.lengthPrefixed { ranges in
            for range in doc.titleRanges {
                ranges.varint(range.lowerBound)
                ranges.varint(range.count)
            }
        }
        if version == 1 { writer.string(entry.title) }
        writer.lengthPrefixed(doc.aliasWords.joined)
        writer.lengthPrefixed { sources in
            for source in doc.aliasSources {
                sources.varint(source.alias)
                if version > 1 {
                    sources.varint(source.range.lowerBound)
                    sources.varint(source.range.count)
                }
            }
        }
        if version == 1 {
            writer.lengthPrefixed(doc.descriptionWords.joined)
            writer.varint(doc.categories.count)
            for category in doc.categories { writer.string(category) }
        } else {
            writer.lengthPrefixed { part in
                if version == 2 {
                    HitFields.encodeAttributes(attributes, into: &part)
                    return
                }
                for (key, value) in attributes {
                    if let number = keys.number(of: key) {
                        part.varint(number)
                    } else {
                        part.byte(0)
                        part.string(key)
                    }
                    part.string(value)
                }
            }
            writer.lengthPrefixed(doc.descriptionWords.joined)
        }
        writer.varint(entry.aliases.count)
        for alias in entry.aliases { writer.string(alias) }
        if let description = entry.description {
            writer.byte(1)
            writer.string(description)
        } else {
            writer.byte(0)
        }
        if version == 1 {
            writer.varint(attributes.count)
            for (key, value) in attributes {
                writer.string(key)
                writer.string(value)
            }
        }
    }
}

/// The hit fields of a version 2 ``DocumentRecord``: `typeahead.v1.EntryHit` fields 1–5 in
/// protobuf's binary encoding, in field order, exactly as a protobuf encoder writes them (proto3:
/// an empty id or title and a zero weight are left out; each attribute is a map entry whose key
/// and value are both written; attributes sorted by key bytes, the deterministic map order), in two
/// parts: the head (fields 1–4) and the attributes (field 5).
///
/// ```
/// 0x0A varint n  id          (field 1, string)
/// 0x12 varint n  title       (field 2, string)
/// 0x1A varint n  category    (field 3, repeated string), one per category in stored order
/// 0x20 varint    weight      (field 4, uint64), when not 0
/// ---
/// 0x2A varint n  0x0A varint k key 0x12 varint v value
///                            (field 5, map<string, string>), one per attribute
/// ```
/// The NodeTests compare both with the generated encoder's bytes.
enum HitFields {
    static let idTag: UInt8 = 0x0A
    static let titleTag: UInt8 = 0x12
    static let categoryTag: UInt8 = 0x1A
    static let weightTag: UInt8 = 0x20
    static let attributeTag: UInt8 = 0x2A
    static let entryKeyTag: UInt8 = 0x0A
    static let entryValueTag: UInt8 = 0x12

    static func encodeHead(id: String, title: String, categories: [String], weight: UInt64, into writer: inout ByteWriter) {
        if !id.isEmpty { writer.byte(idTag); writer.string(id) }
        if !title.isEmpty { writer.byte(titleTag); writer.string(title) }
        for category in categories { writer.byte(categoryTag); writer.string(category) }
        if weight != 0 { writer.byte(weightTag); writer.varint(weight) }
    }

    static func encodeAttributes(_ attributes: [(key: String, value: String)], into writer: inout ByteWriter) {
        for (key, value) in attributes {
            writer.byte(attributeTag)
            writer.varint(2 + varintSize(key.utf8.count) + key.utf8.count + varintSize(value.utf8.count) + value.utf8.count)
            writer.byte(entryKeyTag); writer.string(key)
            writer.byte(entryValueTag); writer.string(value)
        }
    }

    static func varintSize(_ value: Int) -> Int {
        var size = 1
        var v = value >> 7
        while v > 0 { size += 1; v >>= 7 }
        return size
    }
}
