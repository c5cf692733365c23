import Foundation
import Storage
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk layout of a shard directory and its manifest.
///
/// ```
/// DIR/
///   MANIFEST        {"format":1,"current":3,"previous":2}   which generation serves; replaced atomically
///   LOCK            flock(2) target: one builder or activator at a time
///   gen-000002/     a complete generation kept for rollback (data.mdb, lock.mdb)
///   gen-000003/     the current generation
///   gen-000004/     a generation being built, or built and staged for activation
///     BUILDING      flock(2)ed by its builder for as long as the build runs
///     LABEL         the catalog fingerprint `typeahead admin reindex` built it from (optional)
///     COMPLETE      written (and fsynced) after the build's data is on disk
///     REVISION      "R": the generation's data is merge-R/, its delta folded into a new base by
///     merge-R/      a merge (see `Shard.beginMerge`), instead of the data.mdb beside it; written
///                   after merge-R/ is complete and synced, so any other merge-R/ is stale
///   upload/         a generation being uploaded in batches, before its build (see `Upload`)
/// ```
/// The manifest is written to `MANIFEST.tmp`, fsynced, renamed over `MANIFEST` and the directory is
/// fsynced: after a crash it names either the old or the new generation, never a mix. A generation
/// directory whose `complete` flag is missing is a build that did not finish; it is removed the next
/// time the directory is opened for writing.
struct GenerationDirectory {
    struct Manifest: Codable, Equatable {
        var format = 1
        var current: Int?
        var previous: Int?
    }

    let path: String

    var manifestPath: String { path + "/MANIFEST" }

    func generationPath(_ number: Int) -> String {
        path + "/gen-" + String(repeating: "0", count: max(0, 6 - String(number).count)) + String(number)
    }

    /// The generation's revision: 0 as built; each merge (its delta folded into the base) adds one.
    /// A missing or unreadable `REVISION` file is revision 0 (the file is written durably, so a
    /// torn one cannot be seen).
    func revision(_ number: Int) -> Int {
        guard let data = FileManager.default.contents(atPath: generationPath(number) + "/REVISION") else { return 0 }
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Where a revision of a generation keeps its LMDB environment.
    func environmentPath(_ number: Int, revision: Int) -> String {
        revision == 0 ? generationPath(number) : generationPath(number) + "/merge-\(revision)"
    }

    /// Makes `revision` (complete, on disk) the generation's data, durably.
    func writeRevision(_ revision: Int, _ number: Int) throws {
        try DurableFile.replace(generationPath(number) + "/REVISION", with: Data("\(revision)\n".utf8))
    }

    /// Removes every revision of the generation but the one `REVISION` names: merges that did not
    /// finish (a crash, a failure) and the data a finished merge replaced. Files still mapped by
    /// a reader of this or another process stay readable until it lets go (unlinked, not gone).
    func removeStaleRevisions(_ number: Int) {
        let directory = generationPath(number)
        let keep = revision(number)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix("merge-") && Int(name.dropFirst(6)) != keep {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
        if keep > 0 {
            for name in ["data.mdb", "lock.mdb"] { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
        }
    }

    func readManifest() throws -> Manifest {
        guard let data = FileManager.default.contents(atPath: manifestPath) else { return Manifest() }
        do {
            return try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            throw IndexError.corrupt("\(manifestPath) cannot be read: \(error)")
        }
    }

    func writeManifest(_ manifest: Manifest) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try DurableFile.replace(manifestPath, with: try encoder.encode(manifest) + Data("\n".utf8))
    }

    /// The label a generation was built with (the catalog fingerprint a reindex gave it), if any.
    func label(_ number: Int) -> String? {
        guard let data = FileManager.default.contents(atPath: generationPath(number) + "/LABEL") else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    func writeLabel(_ label: String, _ number: Int) throws {
        try DurableFile.replace(generationPath(number) + "/LABEL", with: Data((label + "\n").utf8))
    }

    /// Generation numbers present on disk.
    func generationsOnDisk() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.compactMap { $0.hasPrefix("gen-") ? Int($0.dropFirst(4)) : nil }.sorted()
    }

    func remove(_ number: Int) throws {
        let target = generationPath(number)
        guard FileManager.default.fileExists(atPath: target) else { return }
        do {
            try FileManager.default.removeItem(atPath: target)
        } catch {
            throw IndexError(.internal, "cannot remove \(target): \(error)")
        }
    }

    func isComplete(_ number: Int) -> Bool {
        FileManager.default.fileExists(atPath: generationPath(number) + "/COMPLETE")
    }

    func markComplete(_ number: Int) throws {
        let file = generationPath(number) + "/COMPLETE"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0, fsync(fd) == 0 else {
            if fd >= 0 { close(fd) }
            throw IndexError(.internal, "cannot write \(file): \(String(cString: strerror(errno)))")
        }
        close(fd)
        let dirfd = open(generationPath(number), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 { _ = fsync(dirfd); close(dirfd) }
    }

    /// Takes the build lock of a generation; nil if another builder (in any process) holds it.
    /// The lock lasts until the returned descriptor is closed.
    func lockBuild(_ number: Int) -> Int32? {
        let fd = open(generationPath(number) + "/BUILDING", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            return nil
        }
        return fd
    }

    /// Holds an exclusive flock on `DIR/LOCK` while `body` runs.
    func withLock<R>(_ body: () throws -> R) throws -> R {
        let fd = open(path + "/LOCK", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IndexError(.internal, "cannot open \(path)/LOCK: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw IndexError(.internal, "cannot lock \(path)/LOCK: \(String(cString: strerror(errno)))") }
        }
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }
}
