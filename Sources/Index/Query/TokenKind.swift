extension SearchToken {
    /// What a token filters on: `category` (the entry has the category), or the key of an
    /// attribute declared filterable for the generation (the entry's attribute of that key is the
    /// value). A string, not an enum: attribute kinds are the operator's names.
    ///
    /// A kind name is 1 to 64 bytes of `[a-z0-9_-]` (the rule of collection names), so it never
    /// holds the 0x00 that ends it in a filter pseudo-term and index keys (``Schema``). Attribute
    /// keys outside that rule can be stored in a catalog but not declared filterable.
    public struct Kind: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
        public let rawValue: String

        /// Nil unless `rawValue` is a valid kind name.
        public init?(rawValue: String) {
            guard Self.isValidName(rawValue) else { return nil }
            self.rawValue = rawValue
        }

        /// An attribute's kind (or `category`); traps on an invalid name (for literals in code).
        public init(_ name: String) {
            guard let kind = Kind(rawValue: name) else { preconditionFailure("\"\(name)\" is not a token kind name") }
            self = kind
        }

        /// Entries of a category.
        public static let category = Kind(rawValue: "category")!
        /// The longest kind name, in bytes.
        public static let maximumNameBytes = 64

        public var isCategory: Bool { self == .category }
        public var description: String { rawValue }

        /// Kinds order by their names' bytes (ASCII, so as strings too).
        public static func < (a: Kind, b: Kind) -> Bool {
            a.rawValue.utf8.lexicographicallyPrecedes(b.rawValue.utf8)
        }

        public static func isValidName(_ name: String) -> Bool {
            let bytes = name.utf8
            guard !bytes.isEmpty, bytes.count <= maximumNameBytes else { return false }
            return bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D }
        }

        /// Checks a declaration of filterable attributes (build settings): each a kind name, not
        /// `category` (reserved), and at most ``maximumFilterable`` of them. Returns them sorted
        /// and without duplicates, the form a generation stores.
        public static func filterable(_ names: [String]) throws(IndexError) -> [String] {
            guard names.count <= maximumFilterable else {
                throw .invalidArgument("at most \(maximumFilterable) filterable attributes, got \(names.count)")
            }
            for name in names {
                guard isValidName(name) else {
                    throw .invalidArgument("filterable attribute \"\(name.prefix(80))\" must be 1 to \(maximumNameBytes) bytes of [a-z0-9_-]")
                }
                guard name != Kind.category.rawValue else {
                    throw .invalidArgument("\"category\" is reserved: it cannot be declared a filterable attribute")
                }
            }
            return Array(Set(names)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }

        /// The most attributes one generation may declare filterable.
        public static let maximumFilterable = 32
    }
}
