import Storage

/// The LMDB databases of one index generation (one LMDB environment per generation directory).
///
/// | database         | key                         | value                                    |
/// |------------------|-----------------------------|------------------------------------------|
/// | `meta`           | ASCII name                  | see ``MetaKey``                          |
/// | `docs`           | document number (``DocumentKey``) | ``DocumentRecord``                 |
/// | `ids`            | entry id, UTF-8             | u32be document number of its live version|
/// | `terms`          | analysed term, UTF-8        | ``PostingList`` (base segment)           |
/// | `trie`           | term prefix, UTF-8          | ``HeavyNode``                            |
/// | `term_trie`      | 0x00                        | ``PackedTrie`` of the base segment's words|
/// | `delta_terms`    | analysed term (dupsort)     | u32be document number + u8 field (0 name, 1 description) |
/// | `deleted`        | u32be document number       | empty: base documents deleted or replaced|
/// | `categories`     | category name, UTF-8        | u64be live entry count                   |
/// | `category_words` | analysed word (dupsort)     | category name whose name has that word   |
/// | `attribute_values` | kind, 0x00, value (UTF-8) | u64be live entries with that value of a filterable attribute |
/// | `attribute_words`  | analysed word (dupsort)   | kind, 0x00, value: a filterable attribute value with that word |
/// | `titles`         | ``TitleKey``: sortTitle, 0x00, u32be document number | empty         |
/// | `completion_variants` | analysed term (dupsort) | u32be base document that has the term as an alias word spelling a title word another way |
/// | `delta_first_prefixes` | a prefix of a delta document's first title word (dupsort, dupfixed) | ``DeltaLists/value(weight:docnum:)``: u64be inverted weight, u32be document number |
/// | `delta_word_prefixes`  | a prefix of any name word of a delta document (dupsort, dupfixed) | the same |
/// | `name_ordinals`  | every 16th base name word, UTF-8 | u32be: its position among the base name words in byte order (``ForwardIndex``) |
/// | `forward`        | u32be chunk number              | the name word ordinals of ``ForwardIndex/chunkSize`` base documents |
///
/// The *base segment* is written once by a build, with document numbers 0..<baseCount in static rank
/// order (weight descending, sortTitle, id), which makes every posting list and trie list best-first.
/// Upserts add *delta* documents (numbers from baseCount on) indexed in `delta_terms`, and mark
/// replaced base documents in `deleted`; queries read both and merge with the same comparator.
/// A merge (``Shard/beginMerge()``) folds the delta into a fresh base, in a new environment (a
/// revision of the same generation).
/// Filters are pseudo-terms in `terms`/`delta_terms`: byte 0x01, the token kind, 0x00, the value.
/// `titles` lists every document (base and delta; deleted base documents stay, as in `terms`) by
/// its analysed title, so the documents whose title starts with typed words are one key range.
/// Generations written before it have none (``titles`` is nil) and are read without it.
/// `completion_variants` lists the base documents that do not offer a name word as a completion
/// (``CompletionSource``), so that a word's best entry is found from its postings without reading
/// documents; few pairs, written by builds. Generations written before it have none (nil): their
/// documents are asked instead.
/// `attribute_values` and `attribute_words` are to the values of filterable attributes (the
/// ``MetaKey/filterableAttributes`` of the generation) what `categories` and `category_words` are
/// to categories: the counts and words of their token chips. A kind name never holds 0x00, so the
/// first 0x00 of a key ends the kind. Generations written before them have neither (nil) and no
/// filterable attributes. Only values of 1 to ``SearchToken/maximumValueBytes`` bytes are indexed
/// (filters, counts, words): no token can name another.
/// `delta_first_prefixes` and `delta_word_prefixes` list delta documents by weight under every
/// prefix of their words, so that a one-word prefix reads the delta's best matches first, as it
/// reads the base's from a heavy node (``DeltaLists``, and when they may be trusted). Generations
/// written before them have neither (nil) and scan the delta.
/// `name_ordinals` and `forward` (``ForwardIndex``) list each base document's name words as
/// numbers, so that the general plan tests a candidate for the typed prefix without reading it.
/// Generations written before them have neither (nil) and read every candidate.
struct Schema {
    let meta: Database
    let docs: Database
    let ids: Database
    let terms: Database
    let trie: Database
    let termTrie: Database
    let deltaTerms: Database
    let deleted: Database
    let categories: Database
    let categoryWords: Database
    /// Nil in generations written before attribute tokens.
    let attributeValues: Database?
    let attributeWords: Database?
    /// Nil in generations written before titles were indexed.
    let titles: Database?
    /// Nil in generations written before completion variants were recorded.
    let completionVariants: Database?
    /// Nil in generations written before the delta's prefix lists (``DeltaLists``).
    let deltaFirstPrefixes: Database?
    let deltaWordPrefixes: Database?
    /// Nil in generations written before the forward index (``ForwardIndex``).
    let nameOrdinals: Database?
    let forward: Database?
    /// Both of them, when the file has them.
    var deltaLists: DeltaLists? {
        guard let deltaFirstPrefixes, let deltaWordPrefixes else { return nil }
        return DeltaLists(firstPrefixes: deltaFirstPrefixes, wordPrefixes: deltaWordPrefixes)
    }
    /// How `docs` is keyed in this file (see ``DocumentKey``).
    let documentKeys: DocumentKey.Encoding
    /// The file's layout version (``MetaKey/format``): a build writes its format's; an existing
    /// file's is read from `meta`, nil when it is missing or unknown (not a generation this
    /// version of the program reads).
    let layout: Int?

    /// The ``DocumentRecord`` version every record of this file has (an update writes its file's).
    var recordVersion: UInt8 { GenerationFormat.recordVersion(layout: layout ?? 1) }

    /// Opens the databases; `create` makes them as `format` says. An existing file is read as it
    /// was written: generations built since document keys became integers have an integer-key
    /// `docs` and a `titles` index, older ones u32be keys compared byte-wise and no `titles`.
    init(environment: Environment, create: Bool, format: GenerationFormat = .current) throws {
        let documentKeys = format.documentKeys
        meta = try environment.database(named: "meta", create: create)
        do {
            docs = try environment.database(named: "docs", flags: documentKeys == .native ? .integerKey : [], create: create)
            self.documentKeys = documentKeys
        } catch let error as StorageError where error.isIncompatible {
            let other: DocumentKey.Encoding = documentKeys == .native ? .bigEndian : .native
            docs = try environment.database(named: "docs", flags: other == .native ? .integerKey : [], create: false)
            self.documentKeys = other
        }
        ids = try environment.database(named: "ids", create: create)
        terms = try environment.database(named: "terms", create: create)
        trie = try environment.database(named: "trie", create: create)
        termTrie = try environment.database(named: "term_trie", create: create)
        deltaTerms = try environment.database(named: "delta_terms", flags: [.duplicateSort, .duplicateFixed], create: create)
        deleted = try environment.database(named: "deleted", create: create)
        categories = try environment.database(named: "categories", create: create)
        categoryWords = try environment.database(named: "category_words", flags: [.duplicateSort], create: create)
        func optional(_ name: String, flags: DatabaseFlags = []) throws -> Database? {
            do {
                return try environment.database(named: name, flags: flags, create: create)
            } catch let error as StorageError where error.isNotFound {
                return nil
            }
        }
        attributeValues = try optional("attribute_values")
        attributeWords = try optional("attribute_words", flags: [.duplicateSort])
        do {
            titles = try environment.database(named: "titles", create: create && format.titles)
        } catch let error as StorageError where error.isNotFound {
            titles = nil
        }
        do {
            completionVariants = try environment.database(named: "completion_variants", flags: [.duplicateSort, .duplicateFixed],
                                                          create: create && format.completionVariants)
        } catch let error as StorageError where error.isNotFound {
            completionVariants = nil
        }
        // Opened as `titles` is: created by a build that writes them, absent (nil) from older files.
        let createLists = create && format.deltaLists
        func deltaList(_ name: String) throws -> Database? {
            do {
                return try environment.database(named: name, flags: [.duplicateSort, .duplicateFixed], create: createLists)
            } catch let error as StorageError where error.isNotFound {
                return nil
            }
        }
        deltaFirstPrefixes = try deltaList("delta_first_prefixes")
        deltaWordPrefixes = try deltaList("delta_word_prefixes")
        let createForward = create && format.forwardIndex
        func forwardPart(_ name: String) throws -> Database? {
            do {
                return try environment.database(named: name, create: createForward)
            } catch let error as StorageError where error.isNotFound {
                return nil
            }
        }
        nameOrdinals = try forwardPart("name_ordinals")
        forward = try forwardPart("forward")
        if create {
            layout = format.layout
        } else {
            let meta = self.meta
            layout = try environment.read { txn in try txn.get(meta, MetaKey.format).flatMap { MetaKey.layout(of: $0.string) } }
        }
    }

    /// The `docs` key of a document number.
    @inline(__always)
    func documentKey(_ docnum: UInt32) -> DocumentKey {
        DocumentKey(number: docnum, encoding: documentKeys)
    }

    /// The document number of a `docs` key.
    @inline(__always)
    func documentNumber(_ key: Bytes) -> UInt32 {
        documentKeys == .native ? key.loadNative(UInt32.self, at: 0) : key.loadBigEndian(UInt32.self, at: 0)
    }

    /// The pseudo-term that lists the entries carrying a token.
    static func tokenTerm(_ token: SearchToken) -> [UInt8] {
        var term: [UInt8] = []
        appendTokenTerm(token, to: &term)
        return term
    }

    /// Appends ``tokenTerm(_:)`` to `bytes`: for a caller that reuses one buffer (a build interns a
    /// token term per entry and chip, and the four arrays a term took were a tenth of its serial
    /// part).
    static func appendTokenTerm(_ token: SearchToken, to bytes: inout [UInt8]) {
        bytes.append(0x01)
        appendAttributeKey(token, to: &bytes)
    }

    /// A token's key in `attribute_values` (and value in `attribute_words`): kind, 0x00, value.
    static func attributeKey(_ token: SearchToken) -> [UInt8] {
        var key: [UInt8] = []
        appendAttributeKey(token, to: &key)
        return key
    }

    private static func appendAttributeKey(_ token: SearchToken, to bytes: inout [UInt8]) {
        bytes.appendUTF8(token.kind.rawValue)
        bytes.append(0x00)
        bytes.appendUTF8(token.value)
    }

    /// The token of an `attribute_values` key.
    static func attributeToken(_ key: some Collection<UInt8>) -> SearchToken? {
        guard let end = key.firstIndex(of: 0x00),
              let kind = SearchToken.Kind(rawValue: String(decoding: key[..<end], as: UTF8.self)) else { return nil }
        return SearchToken(kind: kind, value: String(decoding: key[key.index(after: end)...], as: UTF8.self))
    }

    /// Where a token's chip is counted and its words listed: `categories` and `category_words`
    /// (keyed by the name), or `attribute_values` and `attribute_words` (by ``attributeKey(_:)``).
    func chipDatabases(_ token: SearchToken) throws(IndexError) -> (counts: Database, words: Database, key: [UInt8]) {
        if token.kind.isCategory { return (categories, categoryWords, Array(token.value.utf8)) }
        guard let attributeValues, let attributeWords else {
            throw .corrupt("a generation written before attribute tokens cannot index attribute \"\(token.kind)\"")
        }
        return (attributeValues, attributeWords, Self.attributeKey(token))
    }
}

/// Keys of the `meta` database.
enum MetaKey {
    /// The layout version of this file, "typeahead-generation-N": 4 for files whose records number
    /// their attribute keys (``DocumentRecord`` version 3, ``attributeKeys``); 3 for files whose
    /// term trie records its nodes' best documents (``PackedTrie``); 2 for files with
    /// ``DocumentRecord`` version 2 and an indexed term trie. Earlier versions of the program
    /// cannot read a later layout and therefore refuse it ("format mismatch") instead of
    /// misreading; this version reads all four as they are.
    static let format = "format"
    static let layouts = 1...4

    static func formatValue(layout: Int) -> String { "typeahead-generation-\(layout)" }

    /// The layout a `format` value names, if this version reads it.
    static func layout(of value: String) -> Int? {
        layouts.first { formatValue(layout: $0) == value }
    }
    /// u32be: documents in the base segment.
    static let baseCount = "base_count"
    /// u32be: the next document number an upsert assigns.
    static let nextDocument = "next_document"
    /// u64be: live entries.
    static let liveCount = "live_count"
    /// "1" once the build finished; a generation without it is partial and is removed.
    static let complete = "complete"
    /// Trie parameters as "listSize,heavyThreshold".
    static let trieParameters = "trie_parameters"
    /// The attribute keys declared filterable (token kinds besides "category"), sorted by bytes
    /// and joined by "," (kind names hold no comma). Generations built before attribute tokens,
    /// or without any declared, have none: they have no filterable attributes.
    static let filterableAttributes = "filterable_attributes"
    /// u32be: the `next_document` up to which the delta's prefix lists list every live delta
    /// document (``DeltaLists``): a build writes its base count, and each batch that maintains
    /// the lists advances it with `next_document`. Absent, or behind `next_document` (a batch by a
    /// version without the lists), the lists are not used.
    static let deltaListsThrough = "delta_lists_through"
    /// Layout 4: the attribute keys its records number (``AttributeKeys``); absent when none are.
    static let attributeKeys = "attribute_keys"
}

/// A key of the `docs` database: a document number, native-endian in an integer-key database
/// (``DatabaseFlags/integerKey``: a point read compares numbers, not bytes, on its way down the
/// tree, which is most of what reading a document costs), or big-endian in generations written
/// before that. Both orders are numeric, so cursor walks read documents in rank order either way.
struct DocumentKey: StorageKey {
    enum Encoding { case native, bigEndian }
    let number: UInt32
    let encoding: Encoding

    @inline(__always)
    func withStorageBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        encoding == .native ? try Swift.withUnsafeBytes(of: number, body) : try Swift.withUnsafeBytes(of: number.bigEndian, body)
    }
}

/// A key of the `titles` database: a document's analysed title (`sortTitle`), cut to its first
/// ``maximumTitleBytes`` bytes (LMDB keys are at most 511 bytes; the cut may split a scalar, which
/// is harmless: keys are compared as bytes, never decoded), then 0x00 (which no analysed word
/// contains) and the document number, u32be.
///
/// A range of keys with one prefix of at most ``maximumTitleBytes`` bytes is exactly the documents
/// whose title starts with it, since a cut title keeps its first ``maximumTitleBytes`` bytes.
enum TitleKey {
    static let maximumTitleBytes = 128

    static func make(sortTitle: some Collection<UInt8>, docnum: UInt32) -> [UInt8] {
        var key = ByteWriter(capacity: min(sortTitle.count, maximumTitleBytes) + 5)
        make(sortTitle: sortTitle, docnum: docnum, into: &key)
        return key.bytes
    }

    static func make(sortTitle: some Collection<UInt8>, docnum: UInt32, into key: inout ByteWriter) {
        key.raw(sortTitle.prefix(maximumTitleBytes))
        key.byte(0x00)
        key.u32be(docnum)
    }

    static func documentNumber(_ key: Bytes) -> UInt32 {
        key.loadBigEndian(UInt32.self, at: key.count - 4)
    }
}

/// What a build writes beyond what every generation has. Builds write ``current``; tests also
/// write ``original``, the layout of generations built before document keys became integers, to
/// prove that such generations are still read exactly (a node upgraded in place serves them).
struct GenerationFormat {
    var documentKeys: DocumentKey.Encoding
    /// Whether the `titles` index is written.
    var titles: Bool
    /// The layout version written (``MetaKey/format``): 3, a term trie with best documents; 2,
    /// records of version 2 and an indexed term trie; 1, neither.
    var layout: Int
    /// Whether `completion_variants` is written.
    var completionVariants = true
    /// Whether the delta's prefix lists (``DeltaLists``) are created. Not a layout change: a
    /// version without them reads and updates the file as before (and the lists are then no
    /// longer trusted, see ``MetaKey/deltaListsThrough``).
    var deltaLists = true
    /// Whether `name_ordinals` and `forward` (``ForwardIndex``) are written. Not a layout change:
    /// a version without them never opens them, and the base they describe never changes.
    var forwardIndex = true

    static let current = GenerationFormat(documentKeys: .native, titles: true, layout: 4)
    static let original = GenerationFormat(documentKeys: .bigEndian, titles: false, layout: 1, completionVariants: false, deltaLists: false,
                                             forwardIndex: false)
    /// What builds wrote before the delta's prefix lists: read as ``current``, the delta scanned.
    static let beforeDeltaLists = GenerationFormat(documentKeys: .native, titles: true, layout: 2, deltaLists: false,
                                                   forwardIndex: false)
    /// What builds wrote before the forward index: read as ``current``, every candidate read.
    static let beforeForwardIndex = GenerationFormat(documentKeys: .native, titles: true, layout: 2, forwardIndex: false)
    /// What builds wrote before the term trie's best documents: read as ``current``, no region
    /// left unread for its best.
    static let beforeTrieBests = GenerationFormat(documentKeys: .native, titles: true, layout: 2)
    /// What builds wrote before attribute keys were numbered (records of version 2).
    static let beforeAttributeKeys = GenerationFormat(documentKeys: .native, titles: true, layout: 3)

    var recordVersion: UInt8 { Self.recordVersion(layout: layout) }
    /// Records of version 2 from layout 2 on, of version 3 (attribute keys numbered) from 4 on.
    static func recordVersion(layout: Int) -> UInt8 { layout >= 4 ? 3 : layout >= 2 ? 2 : 1 }
    /// Nodes with this many children get a child index (nil: none).
    var indexedChildren: Int? { layout >= 2 ? PackedTrie.indexedChildren : nil }
    /// Whether the term trie records its nodes' best documents.
    var trieBests: Bool { layout >= 3 }
    /// Whether records number their attribute keys (``AttributeKeys``).
    var numbersAttributeKeys: Bool { layout >= 4 }
}
