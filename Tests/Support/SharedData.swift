import Catalog
import Foundation

/// The real catalogs in `../shared/data` beside the checkout (tests only; the product never needs them).
public enum SharedData {
    /// `../shared/data/<name>` next to the package root.
    public static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()   // Support
            .deletingLastPathComponent()   // Tests
            .deletingLastPathComponent()   // package root
            .deletingLastPathComponent()
            .appendingPathComponent("shared/data/\(name)").path
    }

    /// Every `step`-th line of a gzipped JSON Lines catalog, parsed with Foundation (not with the
    /// Catalog module, so that this test does not depend on it).
    public static func sample(path: String, count: Int) throws -> [CatalogEntry] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/zcat")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = data.split(separator: UInt8(ascii: "\n"))
        let step = max(1, lines.count / count)
        var entries: [CatalogEntry] = []
        var index = 0
        while index < lines.count, entries.count < count {
            defer { index += step }
            guard let object = try JSONSerialization.jsonObject(with: Data(lines[index])) as? [String: Any],
                  let id = object["id"] as? String, let title = object["title"] as? String else { continue }
            var categories: [String] = []
            if let c = object["category"] as? String { categories.append(c) }
            if let cs = object["categories"] as? [String] { categories += cs }
            let weight = (object["weight"] as? NSNumber)?.uint64Value ?? 0
            let aliases = (object["aliases"] as? [String] ?? []).filter { !$0.isEmpty }
            let description = object["description"] as? String
            var attributes: [String: String] = [:]
            for (key, value) in object["attributes"] as? [String: Any] ?? [:] {
                if let value = value as? String { attributes[key] = value }
            }
            entries.append(CatalogEntry(id: id, title: title, categories: categories, weight: weight,
                                        aliases: aliases, description: description, attributes: attributes))
        }
        return entries
    }

}
