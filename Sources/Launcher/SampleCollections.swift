import Catalog
import Cluster
import Foundation

/// The bundled sample as `typeahead local` serves it when no catalog is named: two collections
/// and a scope over both, the smallest cluster that shows scopes, sections and prompts.
///
/// - `products`: the sample's entries, the **default collection**, so a request that names no
///   collection reads exactly what it read when the sample was the cluster's only catalog.
/// - `departments`: one entry per distinct category of the sample (``departments(of:)``).
/// - the scope `all` ("All", prompt "Departments and products") over departments, then products.
///
/// ```swift
/// let options = LocalCluster.Options.sample(catalog: "deploy/catalog/sample.jsonl", executable: path)
/// // options.collections == [("products", "deploy/catalog/sample.jsonl")], options.derived == ("departments", …)
/// ```
public enum SampleCollections {
    public static let products = "products"
    public static let departments = "departments"
    /// The scope over both: what a search field over "departments and products" picks.
    public static let scope = ClusterFile.Scope(name: "all", label: "All", prompt: "Departments and products",
                                                collections: [departments, products])

    /// One entry per distinct category of `entries`: title the category as written, weight the
    /// number of entries that carry it (so the biggest departments rank first), id `dept-` and
    /// the category in lower-case letters and digits, words joined by `-` (a second category
    /// with the same id gets `-2`, `-3`…). In order of first appearance. O(entries × categories).
    ///
    /// ```swift
    /// SampleCollections.departments(of: [CatalogEntry(id: "1", title: "Torch", categories: ["Kitchen"])])
    /// // [CatalogEntry(id: "dept-kitchen", title: "Kitchen", weight: 1)]
    /// ```
    public static func departments(of entries: [CatalogEntry]) -> [CatalogEntry] {
        var order: [String] = []
        var counts: [String: UInt64] = [:]
        for entry in entries {
            var inEntry = Set<String>()
            for category in entry.categories where inEntry.insert(category).inserted {
                if counts[category] == nil { order.append(category) }
                counts[category, default: 0] += 1
            }
        }
        var ids = Set<String>()
        return order.map { category in
            let base = "dept-" + slug(category)
            var id = base
            var suffix = 2
            while !ids.insert(id).inserted {
                id = "\(base)-\(suffix)"
                suffix += 1
            }
            return CatalogEntry(id: id, title: category, weight: counts[category] ?? 0)
        }
    }

    /// Writes the departments of the catalog at `catalog` to `path` as JSON Lines.
    public static func writeDepartments(of catalog: String, to path: String) throws {
        let entries = try loadCatalog(path: catalog, policy: .skipInvalid).entries
        let lines = departments(of: entries).map { $0.jsonLine() }.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Lower-case ASCII letters and digits, other runs as one `-`, at most 200 bytes ("x" if none).
    static func slug(_ text: String) -> String {
        var slug = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug.isEmpty ? "x" : String(slug.prefix(200))
    }
}

extension LocalCluster.Options {
    /// The sample at `catalog` as ``SampleCollections`` describes: products (the default),
    /// departments derived from it at start, and the scope `all`.
    public static func sample(catalog: String, executable: String) -> Self {
        var options = Self(catalog: nil, executable: executable)
        options.collections = [(SampleCollections.products, catalog)]
        options.derived = (SampleCollections.departments, catalog)
        options.scopes = [SampleCollections.scope]
        return options
    }
}
