internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Environment {
    /// Maps the data file's pages in use into this process's page tables now, so that reads find
    /// them mapped instead of faulting them in one by one: `madvise(MADV_POPULATE_READ)` over the
    /// part of the memory map in use from byte `offset`, at most `limit` bytes of it. Returns the
    /// bytes populated: 0 once `offset` is past the pages in use. `populateMap()` does them all;
    /// a caller that wants to stop between parts asks for one part at a time.
    ///
    /// **Why.** LMDB reads through a shared read-only map: the first read of each page after the
    /// environment opens costs a page fault, several microseconds on a virtual machine, and a query
    /// that reaches a new part of the index pays hundreds of them (a typo'd keystroke on a
    /// million-entry shard, first of its kind in a new process: 800 faults, 5 ms, for 0.4 ms of
    /// work). A long-running reader pays each once; populating after open pays them at once, in
    /// batches (0.15 µs a page here), off the query path, as search engines preload their
    /// memory-mapped files.
    ///
    /// **Cost.** Pages not in the page cache are read from disk, so call it from a background
    /// thread. Memory: the mapped pages count in the process's resident size as file pages (the
    /// kernel may drop them again under pressure, as any cached page); nothing is allocated.
    /// Linux before 5.14 has no `MADV_POPULATE_READ`: then a byte of each page is read instead.
    ///
    /// Lifetime: the caller keeps the environment open for the call (the map goes with it).
    /// Thread-safety: any thread; reads only.
    @discardableResult
    public func populateMap(from offset: Int = 0, atMost limit: Int = .max) throws -> Int {
        var info = MDB_envinfo()
        try check(mdb_env_info(handle, &info), "mdb_env_info")
        var stat = MDB_stat()
        try check(mdb_env_stat(handle, &stat), "mdb_env_stat")
        let pageSize = Int(stat.ms_psize)
        let used = min((info.me_last_pgno + 1) * pageSize, info.me_mapsize)
        let start = offset - offset % pageSize
        guard start < used, limit > 0, let base = try mapBase() else { return 0 }
        let length = min(used - start, max(pageSize, limit - limit % pageSize))
        if madvise(base + start, length, MADV_POPULATE_READ) != 0 {
            guard errno == EINVAL else { throw StorageError(code: errno, operation: "madvise(MADV_POPULATE_READ)") }
            // An older kernel: read a byte of each page.
            var sum: UInt8 = 0
            for page in stride(from: start, to: start + length, by: pageSize) {
                sum &+= base.load(fromByteOffset: page, as: UInt8.self)
            }
            withExtendedLifetime(sum) {}
        }
        return length
    }

    /// Where LMDB mapped the data file in this process, looked up once (``mapAddress``): a
    /// background populate asks for every part of a big index.
    private func mapBase() throws -> UnsafeMutableRawPointer? {
        if let known = UnsafeMutableRawPointer(bitPattern: mapAddress.load(ordering: .relaxed)) { return known }
        guard let found = try findMap() else { return nil }
        mapAddress.store(UInt(bitPattern: found), ordering: .relaxed)
        return found
    }

    /// Where LMDB mapped the data file in this process: the mapping of that file at offset 0 in
    /// `/proc/self/maps` (`mdb_env_info` reports the address only for `MDB_FIXEDMAP`
    /// environments); nil when it is not found (another system, an unreadable file).
    private func findMap() throws -> UnsafeMutableRawPointer? {
        var directory: UnsafePointer<CChar>?
        try check(mdb_env_get_path(handle, &directory), "mdb_env_get_path")
        var flags: UInt32 = 0
        try check(mdb_env_get_flags(handle, &flags), "mdb_env_get_flags")
        guard let directory else { return nil }
        let file = flags & UInt32(MDB_NOSUBDIR) != 0 ? String(cString: directory) : String(cString: directory) + "/data.mdb"
        guard let resolved = realpath(file, nil) else { return nil }
        let target = String(cString: resolved)
        free(resolved)
        guard let maps = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(maps) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        // "start-end perms offset dev inode path": the path starts at the first "/" of the line.
        while getline(&line, &capacity, maps) > 0, let text = line.map({ String(cString: $0) }) {
            let trimmed = text.hasSuffix("\n") ? String(text.dropLast()) : text
            guard let slash = trimmed.firstIndex(of: "/"), trimmed[slash...] == target else { continue }
            let fields = trimmed.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, UInt64(fields[2], radix: 16) == 0,
                  let dash = fields[0].firstIndex(of: "-"), let start = UInt(fields[0][..<dash], radix: 16) else { continue }
            return UnsafeMutableRawPointer(bitPattern: start)
        }
        return nil
    }
}
