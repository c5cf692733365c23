import Foundation
import Storage

extension LoadReport {
    /// Writes `report.json`, `latency.svg` and `summary.txt` into `directory` (created if
    /// missing) and returns their paths. Throws ``LoadError`` naming the file that failed.
    @discardableResult
    public func write(to directory: String) throws(LoadError) -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw LoadError(.workload, "cannot create the report directory \(directory): \(error.localizedDescription)")
        }
        var written: [String] = []
        for (name, text) in [("report.json", json()), ("latency.svg", svg()), ("summary.txt", summary())] {
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                try DurableFile.replace(path, with: Data(text.utf8))
            } catch {
                throw LoadError(.workload, "cannot write \(path): \(error)")
            }
            written.append(path)
        }
        return written
    }
}
