// The canonical JSON encoding of an entry. Written by hand rather than with yajl_gen: the format
// is tiny and fixed, and a byte loop here is both faster and free of C lifetimes.

extension CatalogEntry {
    /// The entry as one canonical catalog line, without a trailing newline.
    ///
    /// Keys come in the order `id`, `title`, `categories`, `weight`, `aliases`, `description`,
    /// `attributes` (attribute keys sorted by their UTF-8 bytes); `categories`, `aliases` and
    /// `attributes` are omitted when empty, `weight` when 0 and `description` when nil. Quotes,
    /// backslashes and control characters are escaped; everything else, including non-ASCII text,
    /// is written as raw UTF-8. For every entry that passes validation (every entry the parser
    /// returns does), parsing the line gives back an equal entry.
    ///
    /// Complexity: O(total length of the entry's strings), plus O(k log k) for k attributes.
    ///
    /// Example:
    /// ```swift
    /// CatalogEntry(id: "7", title: "Crème \"Brûlée\"", weight: 3).jsonLine()
    /// // {"id":"7","title":"Crème \"Brûlée\"","weight":3}
    /// ```
    public func jsonLine() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64 + id.utf8.count + title.utf8.count + (description?.utf8.count ?? 0))
        out.append(contentsOf: #"{"id":"#.utf8)
        appendJSONString(id, to: &out)
        out.append(contentsOf: #","title":"#.utf8)
        appendJSONString(title, to: &out)
        if !categories.isEmpty {
            out.append(contentsOf: #","categories":"#.utf8)
            appendJSONArray(categories, to: &out)
        }
        if weight != 0 {
            out.append(contentsOf: #","weight":"#.utf8)
            out.append(contentsOf: String(weight).utf8)
        }
        if !aliases.isEmpty {
            out.append(contentsOf: #","aliases":"#.utf8)
            appendJSONArray(aliases, to: &out)
        }
        if let description {
            out.append(contentsOf: #","description":"#.utf8)
            appendJSONString(description, to: &out)
        }
        if !attributes.isEmpty {
            out.append(contentsOf: #","attributes":{"#.utf8)
            // Sorting by UTF-8 bytes (not by String's Unicode ordering) gives the same order in
            // every language that reads these files back, which keeps diffs of catalogs stable.
            let keys = attributes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendJSONString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                appendJSONString(attributes[key]!, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}

private func appendJSONArray(_ strings: [String], to out: inout [UInt8]) {
    out.append(UInt8(ascii: "["))
    for (index, string) in strings.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        appendJSONString(string, to: &out)
    }
    out.append(UInt8(ascii: "]"))
}

/// Appends `string` as a quoted JSON string.
func appendJSONString(_ string: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    appendEscaped(string.utf8, to: &out)
    out.append(UInt8(ascii: "\""))
}

/// Appends the bytes with JSON escapes for `"`, `\` and the C0 controls (RFC 8259 §7); all other
/// bytes, including multi-byte UTF-8, are copied unchanged.
func appendEscaped(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
    for byte in bytes {
        if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
            out.append(byte)
            continue
        }
        out.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        default:  // other C0 controls: \u00XX, lowercase hex
            let low = byte & 0x0F
            out.append(UInt8(ascii: "u"))
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "0") + (byte >> 4))
            out.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }
}
