// The validation state machine: turns the events of a streaming JSON parser into a CatalogEntry
// or into the first error on the line (module quirk 1). Pure Swift with no C types, so the format's
// rules live in one place, apart from the yajl plumbing in JSONLineParser.swift.
//
// Nesting levels: 0 is outside the line's object, 1 is inside it (keys there are field names),
// 2 is inside a field's array or object. Known fields never go deeper than 2; values of unknown
// fields may, up to `CatalogLimits.maximumNestingDepth`.

import JSONTree

/// The top-level fields of the format.
enum CatalogField: UInt8 {
    case id, title, category, categories, weight, aliases, description, attributes, unknown

    /// The field named by the UTF-8 bytes `key`. Compares bytes; no String is made.
    init(key: UnsafeBufferPointer<UInt8>) {
        func equals(_ name: StaticString) -> Bool {
            name.utf8CodeUnitCount == key.count
                && memcmpEqual(name.utf8Start, key.baseAddress, key.count)
        }
        switch key.count {
        case 2 where equals("id"): self = .id
        case 5 where equals("title"): self = .title
        case 6 where equals("weight"): self = .weight
        case 7 where equals("aliases"): self = .aliases
        case 8 where equals("category"): self = .category
        case 10 where equals("categories"): self = .categories
        case 10 where equals("attributes"): self = .attributes
        case 11 where equals("description"): self = .description
        default: self = .unknown
        }
    }

    var name: String {
        switch self {
        case .id: "id"
        case .title: "title"
        case .category: "category"
        case .categories: "categories"
        case .weight: "weight"
        case .aliases: "aliases"
        case .description: "description"
        case .attributes: "attributes"
        case .unknown: "?"
        }
    }

    /// What a value of this field must be, as error messages say it.
    var expected: String {
        switch self {
        case .id, .category: "a non-empty string"
        case .title: "a non-blank string"
        case .categories, .aliases: "an array of strings"
        case .weight: "a non-negative integer (or a string holding one)"
        case .description: "a string"
        case .attributes: "an object with string, number or boolean values"
        case .unknown: "any value"
        }
    }

    var bit: UInt16 { 1 << rawValue }
}

private func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>?, _ count: Int) -> Bool {
    guard let b else { return count == 0 }
    for i in 0..<count where a[i] != b[i] { return false }
    return true
}

/// A scalar JSON value as the parser reports it. The buffers are only valid during the event.
enum JSONScalar {
    case null
    case bool(Bool)
    /// The number's text as written, e.g. `1.5e3`.
    case number(UnsafeBufferPointer<UInt8>)
    /// The decoded string's UTF-8 bytes.
    case string(UnsafeBufferPointer<UInt8>)

    /// How error messages show the value: `null`, `true`, `-3`, `"abc"` (long text cut to about
    /// 40 bytes, ending in "…").
    var got: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text): return String(decoding: excerpt(text), as: UTF8.self)
        case .string(let bytes):
            var out: [UInt8] = [UInt8(ascii: "\"")]
            appendEscaped(excerpt(bytes), to: &out)
            out.append(UInt8(ascii: "\""))
            return String(decoding: out, as: UTF8.self)
        }
    }
}

/// The first ~40 bytes of `bytes`, cut at a character boundary, with "…" appended when cut.
private func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    let limit = 40
    guard bytes.count > limit else { return Array(bytes) }
    var end = limit
    while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }  // do not split a UTF-8 sequence
    return Array(bytes[0..<end]) + Array("…".utf8)
}

/// Collects one line's entry from parser events. Reused across lines: call `begin(line:)` first.
///
/// Every event method returns true to continue and false to stop the parse; after false,
/// `failure` holds the reason.
struct EntryBuilder {
    let limits: CatalogLimits

    /// Why the line is invalid, once an event returned false.
    private(set) var failure: String?
    /// True once the line's top-level object has been closed.
    private(set) var finished = false
    /// Unknown top-level fields seen on this line.
    private(set) var unknownFields = 0
    /// What this line said that was read as meant rather than as written (blank optional fields…).
    private(set) var notices: CatalogNotices = []

    // Where the line's bytes are. Strings outside it came from yajl's escape decoder and are
    // validated again, since `\uDC00` decodes to bytes that are not UTF-8 (module quirk 4).
    private var lineStart: UnsafePointer<UInt8>?
    private var lineEnd: UnsafePointer<UInt8>?

    private var depth = 0
    private var field = CatalogField.unknown
    private var unknownFieldName = ""
    private var seenFields: UInt16 = 0
    /// Which of "category" / "categories" supplied the categories (a null supplies nothing).
    private var categorySource: CatalogField?
    /// Elements seen in the current array field, or keys in "attributes".
    private var elementCount = 0
    private var attributeKey = ""

    private var id: String?
    private var title: String?
    private var categories: [String] = []
    private var weight: UInt64 = 0
    private var aliases: [String] = []
    private var description: String?
    private var attributes: [String: String] = [:]

    init(limits: CatalogLimits) {
        self.limits = limits
    }

    /// Forgets the previous line and prepares for `line`. Resets field by field rather than
    /// assigning a fresh builder, which would copy and destroy the whole struct once per line.
    mutating func begin(line: UnsafeBufferPointer<UInt8>) {
        lineStart = line.baseAddress
        lineEnd = line.baseAddress.map { $0 + line.count }
        failure = nil
        finished = false
        unknownFields = 0
        notices = []
        depth = 0
        field = .unknown
        seenFields = 0
        categorySource = nil
        elementCount = 0
        // After `takeEntry` these are already empty; after a failed line they may not be.
        id = nil
        title = nil
        categories = []
        weight = 0
        aliases = []
        description = nil
        attributes = [:]
    }

    /// The entry, once the parser has accepted the whole line, or why the line is invalid.
    /// Moves the collected values out instead of copying them (saving a retain and a release
    /// per string and collection); `begin` must be called before the next line.
    mutating func takeEntry() -> Result<CatalogEntry, CatalogLineFailure> {
        guard finished else { return .failure(.init("expected a JSON object, got nothing")) }
        guard let id = id.take() else { return .failure(.init(#"missing required field "id""#)) }
        guard let title = title.take() else { return .failure(.init(#"missing required field "title""#)) }
        return .success(CatalogEntry(
            id: id, title: title, categories: take(&categories, leaving: []), weight: weight,
            aliases: take(&aliases, leaving: []), description: description.take(),
            attributes: take(&attributes, leaving: [:])))
    }

    // MARK: - Events

    mutating func scalar(_ value: JSONScalar) -> Bool {
        switch depth {
        case 0: return fail(finished ? Self.secondValue : "expected a JSON object, got \(value.got)")
        case 1: return fieldValue(value)
        default:
            switch field {
            case .categories: return categoryElement(value)
            case .aliases: return aliasElement(value)
            case .attributes: return attributeValue(value)
            default: return true  // somewhere inside an unknown field's value
            }
        }
    }

    mutating func startMap() -> Bool {
        switch depth {
        case 0:
            if finished { return fail(Self.secondValue) }
            depth = 1
            return true
        case 1:
            switch field {
            case .attributes:
                depth = 2
                elementCount = 0
                // Real catalogs have a handful of attributes; skip the 1 → 2 → 4 → 8 regrowth.
                attributes.reserveCapacity(8)
                return true
            case .unknown: return nest()
            default: return failType(got: "an object")
            }
        default:
            return field == .unknown ? nest() : failElement(got: "an object")
        }
    }

    mutating func startArray() -> Bool {
        switch depth {
        case 0: return fail(finished ? Self.secondValue : "expected a JSON object, got an array")
        case 1:
            switch field {
            case .categories:
                if categorySource == .category { return fail(Self.bothCategoryFields) }
                categorySource = .categories
                fallthrough
            case .aliases:
                depth = 2
                elementCount = 0
                return true
            case .unknown: return nest()
            default: return failType(got: "an array")
            }
        default:
            return field == .unknown ? nest() : failElement(got: "an array")
        }
    }

    mutating func endMap() -> Bool {
        depth -= 1
        if depth == 0 {
            finished = true
        } else if depth == 1 && field == .attributes && elementCount > limits.maximumAttributes {
            return fail(
                "field \"attributes\": expected at most \(limits.maximumAttributes) keys, got \(elementCount); "
                    + "remove some (a fixed limit of the catalog format)")
        }
        return true
    }

    mutating func endArray() -> Bool {
        depth -= 1
        guard depth == 1 else { return true }
        if field == .categories && elementCount > limits.maximumCategories {
            return fail(
                "field \"categories\": expected at most \(limits.maximumCategories) categories, got \(elementCount); "
                    + "remove some (a fixed limit of the catalog format)")
        }
        if field == .aliases && elementCount > limits.maximumAliases {
            return fail(
                "field \"aliases\": expected at most \(limits.maximumAliases) aliases, got \(elementCount); "
                    + "remove some (a fixed limit of the catalog format)")
        }
        return true
    }

    mutating func mapKey(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        if depth == 1 {
            field = CatalogField(key: key)
            if field == .unknown {
                unknownFields += 1
                unknownFieldName = String(decoding: key, as: UTF8.self)
                return true
            }
            if seenFields & field.bit != 0 {
                return fail("duplicate field \"\(field.name)\"; give each field once")
            }
            seenFields |= field.bit
            return true
        }
        if depth == 2 && field == .attributes {
            elementCount += 1
            guard key.count <= limits.maximumAttributeKeyBytes else {
                return fail(
                    "field \"attributes\": expected keys of at most \(limits.maximumAttributeKeyBytes) UTF-8 bytes, "
                        + "got \(JSONScalar.string(key).got) (\(key.count) bytes); "
                        + "shorten it (a fixed limit of the catalog format)")
            }
            guard let key = makeString(key) else { return false }
            attributeKey = key
        }
        return true
    }

    // MARK: - Values

    private mutating func fieldValue(_ value: JSONScalar) -> Bool {
        switch field {
        case .unknown:
            return true
        case .id:
            guard case .string(let bytes) = value, bytes.count > 0 else { return failType(got: value.got) }
            guard checkLength(bytes, limits.maximumIdBytes, "maximumIdBytes") else { return false }
            guard let id = makeString(bytes) else { return false }
            self.id = id
        case .title:
            guard case .string(let bytes) = value else { return failType(got: value.got) }
            guard checkLength(bytes, limits.maximumTitleBytes, "maximumTitleBytes") else { return false }
            guard let title = makeString(bytes) else { return false }
            guard !isBlank(bytes, title) else {
                return failType(got: value.got)
            }
            self.title = title
        case .category:
            if case .null = value { return true }
            guard case .string(let bytes) = value else { return failType(got: value.got) }
            if bytes.count == 0 {
                notices.insert(.blankCategory)
                return true
            }
            if categorySource == .categories { return fail(Self.bothCategoryFields) }
            categorySource = .category
            guard checkLength(bytes, limits.maximumCategoryBytes, "maximumCategoryBytes") else { return false }
            guard let category = makeString(bytes) else { return false }
            categories = [category]
        case .weight:
            switch value {
            case .null:
                return true
            case .number(let text):
                return readWeight(text, value)
            case .string(let bytes) where bytes.count == 0:
                notices.insert(.blankWeight)
            case .string(let bytes):
                // What CSV converters write. Read by the rules the JSON API reads integer fields
                // by (proto3 JSON: a number, or a string holding one), so "12", "12.0" and "1e3"
                // mean the same in a catalog line and in a request.
                notices.insert(.weightAsText)
                return readWeight(bytes, value)
            default:
                return failType(got: value.got)
            }
        case .description:
            if case .null = value { return true }
            guard case .string(let bytes) = value else { return failType(got: value.got) }
            if bytes.count == 0 {
                notices.insert(.blankDescription)
                return true
            }
            guard checkLength(bytes, limits.maximumDescriptionBytes, "maximumDescriptionBytes") else { return false }
            guard let text = makeString(bytes) else { return false }
            description = text
        case .categories, .aliases, .attributes:
            if case .null = value { return true }
            return failType(got: value.got)
        }
        return true
    }

    private mutating func categoryElement(_ value: JSONScalar) -> Bool {
        let index = elementCount
        elementCount += 1
        guard case .string(let bytes) = value else {
            return fail("field \"categories\"[\(index)]: expected a string, got \(value.got)")
        }
        if bytes.count == 0 {
            notices.insert(.blankInCategories)
            return true
        }
        guard checkLength(bytes, limits.maximumCategoryBytes, "maximumCategoryBytes", index: index) else {
            return false
        }
        guard elementCount <= limits.maximumCategories else { return true }  // reported at the array's end
        guard let category = makeString(bytes) else { return false }
        // At most 32 elements by default: a linear scan beats hashing.
        // Byte-exact: "Café" and "Cafe\u{301}" are different categories (String == would merge them).
        if !categories.contains(where: { $0.utf8.elementsEqual(category.utf8) }) { categories.append(category) }
        return true
    }

    private mutating func aliasElement(_ value: JSONScalar) -> Bool {
        let index = elementCount
        elementCount += 1
        guard case .string(let bytes) = value else {
            return fail("field \"aliases\"[\(index)]: expected a string, got \(value.got)")
        }
        if bytes.count == 0 {
            notices.insert(.blankAlias)
            return true
        }
        guard elementCount <= limits.maximumAliases else { return true }
        guard checkLength(bytes, limits.maximumAliasBytes, "maximumAliasBytes", index: index) else { return false }
        guard let alias = makeString(bytes) else { return false }
        aliases.append(alias)
        return true
    }

    private mutating func attributeValue(_ value: JSONScalar) -> Bool {
        switch value {
        case .string(let text):
            return keepAttribute(text)
        case .number(let text):
            // A number is kept as written ("19.90" stays "19.90"); yajl checked its grammar.
            notices.insert(.attributeAsText)
            return keepAttribute(text)
        case .bool(let flag):
            notices.insert(.attributeAsText)
            return Array((flag ? "true" : "false").utf8).withUnsafeBufferPointer { keepAttribute($0) }
        case .null:
            notices.insert(.nullAttribute)
            return true
        }
    }

    /// Keeps `bytes` as the value of the current attribute key, within the format's limits.
    private mutating func keepAttribute(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count <= limits.maximumAttributeValueBytes else {
            return fail(
                "field \"attributes\"[\(quoted(attributeKey))]: expected at most \(limits.maximumAttributeValueBytes) "
                    + "UTF-8 bytes, got \(bytes.count); shorten it (a fixed limit of the catalog format)")
        }
        guard elementCount <= limits.maximumAttributes else { return true }  // reported at the object's end
        guard let text = makeString(bytes) else { return false }
        if attributes.updateValue(text, forKey: attributeKey) != nil {
            return fail("field \"attributes\": duplicate key \(quoted(attributeKey)); give each key once")
        }
        return true
    }

    /// The weight in `text` (a JSON number's text, or a string's content): a whole number within
    /// the limit. `WholeNumber` checks the grammar, which yajl has not for a string's content.
    private mutating func readWeight(_ text: UnsafeBufferPointer<UInt8>, _ value: JSONScalar) -> Bool {
        switch WholeNumber(text: text) {
        case .value(negative: false, let magnitude) where magnitude <= limits.maximumWeight:
            weight = magnitude
            return true
        case .value(negative: true, _), .notWhole:
            return failType(got: value.got)
        case .value(negative: false, _), .tooLarge:
            return fail(
                "field \"weight\": expected a non-negative integer of at most \(limits.maximumWeight), "
                    + "got \(value.got)")
        }
    }

    // MARK: - Helpers

    /// True when the title is empty or only white space (Unicode's White_Space property). Looks at
    /// bytes first: one visible ASCII character settles it without Unicode property lookups.
    private func isBlank(_ bytes: UnsafeBufferPointer<UInt8>, _ title: String) -> Bool {
        if bytes.contains(where: { $0 > 0x20 && $0 < 0x7F }) { return false }
        return !title.unicodeScalars.contains(where: { !$0.properties.isWhitespace })
    }

    private static let secondValue = "expected one JSON object per line, got a second value after it"
    private static let bothCategoryFields =
        #"both "category" and "categories" given; use one of them"#

    private mutating func fail(_ reason: String) -> Bool {
        failure = reason
        return false
    }

    /// "field "x": expected <the field's type>, got <got>".
    private mutating func failType(got: String) -> Bool {
        fail("field \"\(field.name)\": expected \(field.expected), got \(got)")
    }

    /// An element of a known array or object field is itself an array or object.
    private mutating func failElement(got: String) -> Bool {
        switch field {
        case .attributes:
            return fail("field \"attributes\"[\(quoted(attributeKey))]: expected a string, got \(got)")
        case .categories:
            return fail("field \"categories\"[\(elementCount)]: expected a non-empty string, got \(got)")
        default:
            return fail("field \"\(field.name)\"[\(elementCount)]: expected a string, got \(got)")
        }
    }

    private mutating func nest() -> Bool {
        guard depth < limits.maximumNestingDepth else {
            return fail(
                "field \(quoted(unknownFieldName)): expected at most \(limits.maximumNestingDepth) levels of nesting, "
                    + "got more; flatten the value (a fixed limit of the catalog format)")
        }
        depth += 1
        return true
    }

    private mutating func checkLength(
        _ bytes: UnsafeBufferPointer<UInt8>, _ maximum: Int, _ limitName: String, index: Int? = nil
    ) -> Bool {
        guard bytes.count > maximum else { return true }
        let subscriptText = index.map { "[\($0)]" } ?? ""
        return fail(
            "field \"\(field.name)\"\(subscriptText): expected at most \(maximum) UTF-8 bytes, got \(bytes.count); "
                + "shorten it (a fixed limit of the catalog format)")
    }

    /// The string for `bytes`, or nil (with `failure` set) when bytes decoded from `\u` escapes
    /// are not valid UTF-8.
    private mutating func makeString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if let start = bytes.baseAddress, let lineStart, let lineEnd, start < lineStart || start >= lineEnd,
            firstInvalidUTF8Offset(bytes) != nil
        {
            _ = fail(
                "field \"\(field.name)\": string has a \\u escape of an unpaired UTF-16 surrogate "
                    + "(\\uD800 to \\uDFFF); escape characters above U+FFFF as a surrogate pair or write them as UTF-8")
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Moves the value out of `variable`, leaving `empty` in its place.
@inline(__always)
private func take<Value>(_ variable: inout Value, leaving empty: Value) -> Value {
    var value = empty
    swap(&variable, &value)
    return value
}

/// `string` as a quoted, escaped JSON string, for messages.
func quoted(_ string: String) -> String {
    var out: [UInt8] = []
    appendJSONString(string, to: &out)
    return String(decoding: out, as: UTF8.self)
}

/// A reason a line is invalid, before a line number is attached.
struct CatalogLineFailure: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}
