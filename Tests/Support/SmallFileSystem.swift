import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted for one test, to fill up: what a full disk looks like to a node. Needs
/// root (the suite runs as root); elsewhere, or where mounting is refused, the test is skipped
/// with the reason.
///
/// ```swift
/// let disk = try SmallFileSystem(megabytes: 4)
/// defer { disk.unmount() }
/// try disk.fill()   // nothing is left but what `fill` leaves
/// ```
public final class SmallFileSystem {
    public let path: String
    private var mounted = true

    public init(megabytes: Int) throws {
        path = NSTemporaryDirectory() + "typeahead-small-fs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let run = try ChildRun.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path], timeout: 30)
        guard run.status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw XCTSkip("cannot mount a tmpfs (needs root): \(run.output)")
        }
    }

    deinit { unmount() }

    /// Bytes free for a writer.
    public var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Writes a filler file until the file system refuses more: afterwards not even a page is free.
    public func fill() throws {
        let filler = path + "/filler-\(UUID().uuidString)"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o644)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let page = [UInt8](repeating: 0x5A, count: 4096)
        while page.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Removes every filler file: the space comes back.
    public func emptyFillers() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where name.hasPrefix("filler-") {
            try FileManager.default.removeItem(atPath: path + "/" + name)
        }
    }

    /// Grows (or shrinks) the file system in place, as an operator adding space would.
    public func resize(megabytes: Int) throws {
        let run = try ChildRun.run("/bin/mount", ["-o", "remount,size=\(megabytes)m", path], timeout: 30)
        guard run.status == 0 else { throw POSIXError(.EIO, userInfo: [NSLocalizedDescriptionKey: run.output]) }
    }

    public func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? ChildRun.run("/bin/umount", ["-l", path], timeout: 30)
        try? FileManager.default.removeItem(atPath: path)
    }
}
