import JSONTree

/// A JSON object read as a proto3 message's fields, the way the proto3 JSON mapping asks:
/// - each field by its lowerCamelCase JSON name or its proto name (`pageSize` or `page_size`),
///   but not both;
/// - `null` is the field's default, as if absent;
/// - integers as JSON numbers (exactly: a uint64 of 2^64 + 1 is refused, not wrapped) or as
///   strings holding one; exponent and fraction forms when their value is whole (`WholeNumber`);
/// - enums by name or by number;
/// - any other member refused by name (a misspelt field silently ignored is a bug the caller
///   never sees).
struct JSONFields {
    private var values: [String: JSONNode] = [:]
    /// Prefixed to field names in errors (`limits.`).
    let path: String

    /// `fields`: the JSON (lowerCamelCase) names; the proto names are derived.
    init(_ node: JSONNode, of message: String, _ fields: [String], path: String = "") throws(GRPCStatus) {
        self.path = path
        guard case .object(let members) = node else {
            throw GRPCStatus(.invalidArgument, "\(path.isEmpty ? message : String(path.dropLast())) must be an object")
        }
        var byName: [String: String] = [:]
        for field in fields {
            byName[field] = field
            byName[Self.protoName(field)] = field
        }
        for (key, value) in members {
            guard let field = byName[key] else { throw GRPCStatus(.invalidArgument, "unknown field \"\(key.prefix(64))\" in \(message)") }
            guard values[field] == nil else {
                throw GRPCStatus(.invalidArgument, "\(path)\(field) is given twice (as \(field) and \(Self.protoName(field)))")
            }
            values[field] = value
        }
        values = values.filter { $0.value != .null }
    }

    /// `pageSize` → `page_size`.
    static func protoName(_ jsonName: String) -> String {
        var name = ""
        for character in jsonName {
            if character.isUppercase {
                name += "_" + character.lowercased()
            } else {
                name.append(character)
            }
        }
        return name
    }

    /// The field's value, nil when absent or null.
    subscript(_ field: String) -> JSONNode? { values[field] }

    func string(_ field: String) throws(GRPCStatus) -> String? {
        guard let node = values[field] else { return nil }
        guard case .string(let text) = node else { throw GRPCStatus(.invalidArgument, "\(path)\(field) must be a string") }
        return text
    }

    func bool(_ field: String) throws(GRPCStatus) -> Bool? {
        guard let node = values[field] else { return nil }
        guard case .bool(let value) = node else { throw GRPCStatus(.invalidArgument, "\(path)\(field) must be true or false") }
        return value
    }

    func integer<T: FixedWidthInteger>(_ field: String, as type: T.Type) throws(GRPCStatus) -> T? {
        guard let node = values[field] else { return nil }
        let parsed: T? = switch node {
        // One reading for every integer read from JSON, the catalog's weight included.
        case .number(let text), .string(let text): WholeNumber(text: text).integer(as: T.self)
        default: nil
        }
        guard let parsed else { throw GRPCStatus(.invalidArgument, "\(path)\(field) must be a whole number from \(T.min) to \(T.max)") }
        return parsed
    }

    /// An enum by name (`text` maps it) or by number (any 32-bit value: unknown numbers are kept,
    /// as proto3 open enums keep them, and refused later by the request's validation if need be).
    func enumeration<E: ProtoEnum>(_ field: String, text: (String) throws(GRPCStatus) -> E) throws(GRPCStatus) -> E? {
        guard let node = values[field] else { return nil }
        switch node {
        case .string(let name): return try text(name)
        case .number(let number):
            guard let value = WholeNumber(text: number).integer(as: Int32.self) else {
                throw GRPCStatus(.invalidArgument, "\(path)\(field) must be a name or a 32-bit number, got \(number)")
            }
            return E(rawValue: value)
        default: throw GRPCStatus(.invalidArgument, "\(path)\(field) must be a name (a string) or a number")
        }
    }
}
