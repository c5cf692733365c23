internal import CSystem
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The process's own series, as every Prometheus client library exposes them (`process_*`), plus
/// the allocator's account: what an operator watches to tell a leak from a cache filling up, and
/// what `scripts/soak.sh` reads.
///
/// - `process_resident_memory_bytes`, `process_virtual_memory_bytes`
/// - `process_resident_anonymous_memory_bytes`: the resident memory that is not a file's pages
///   (the heap, stacks): LMDB's map is file pages, so the index's reads do not count here, and
///   this is the figure that grows when the process keeps more
/// - `process_open_fds`, `process_max_fds`
/// - `process_cpu_seconds_total`, `process_start_time_seconds`
/// - `typeahead_heap_bytes{state="in_use"|"free"}`: the allocator's (jemalloc's) count of bytes
///   handed out and not freed, and of bytes resident beyond them (freed pages not yet returned)
///
/// Read from `/proc/self` at scrape time (Linux); on other systems the `/proc` series are absent.
public enum ProcessMetrics {
    /// Registers the series in `registry` (once per registry: registering twice traps).
    public static func register(in registry: MetricsRegistry) {
        registry.gauge(name: "process_resident_memory_bytes", help: "Resident memory size in bytes.", labelNames: []) {
            status("VmRSS").map { [CallbackSample(labelValues: [], value: $0)] } ?? []
        }
        registry.gauge(name: "process_resident_anonymous_memory_bytes",
                       help: "Resident memory that is not mapped from files (heap and stacks), in bytes.", labelNames: []) {
            status("RssAnon").map { [CallbackSample(labelValues: [], value: $0)] } ?? []
        }
        registry.gauge(name: "process_virtual_memory_bytes", help: "Virtual memory size in bytes.", labelNames: []) {
            status("VmSize").map { [CallbackSample(labelValues: [], value: $0)] } ?? []
        }
        registry.gauge(name: "process_open_fds", help: "Open file descriptors.", labelNames: []) {
            openDescriptors().map { [CallbackSample(labelValues: [], value: Double($0))] } ?? []
        }
        registry.gauge(name: "process_max_fds", help: "The limit of open file descriptors.") {
            var limit = rlimit()
            return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Double(limit.rlim_cur) : 0
        }
        registry.counter(name: "process_cpu_seconds_total", help: "User and system CPU time spent, in seconds.") {
            var usage = rusage()
            guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
            return seconds(usage.ru_utime) + seconds(usage.ru_stime)
        }
        let start = Date().timeIntervalSince1970 - uptime()
        registry.gauge(name: "process_start_time_seconds", help: "Start time of the process since the Unix epoch, in seconds.") {
            start
        }
        registry.gauge(name: "typeahead_heap_bytes", help: "Heap bytes by the allocator's account: in use, or freed and kept for reuse.",
                       labelNames: ["state"]) {
            var inUse: UInt64 = 0, free: UInt64 = 0
            csystem_heap_statistics(&inUse, &free)
            return [CallbackSample(labelValues: ["in_use"], value: Double(inUse)),
                    CallbackSample(labelValues: ["free"], value: Double(free))]
        }
    }

    /// A `kB` field of `/proc/self/status`, in bytes.
    static func status(_ field: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return parseStatus(text, field: field)
    }

    /// A `kB` field of a `/proc/PID/status` text, in bytes.
    static func parseStatus(_ text: String, field: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            // "VmSize:\t  227284 kB": a tab, then spaces that pad the number to eight places;
            // a wider number (100 GB of LMDB maps) follows the tab directly.
            let parts = line.split(omittingEmptySubsequences: true) { $0 == " " || $0 == "\t" }
            guard parts.count >= 2, let kilobytes = Double(parts[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }

    /// The entries of `/proc/self/fd` (the directory's own descriptor, open while it is read, not counted).
    static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { count += 1 }
        }
        return count - 1
    }

    /// How long the process has run, from `/proc/self/stat`'s start time (in clock ticks since boot)
    /// and the system's uptime; 0 where unknown.
    private static func uptime() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let system = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // Fields after the command's closing parenthesis: state is field 3, starttime field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]),
              let systemUptime = system.split(separator: " ").first.flatMap({ Double($0) }) else { return 0 }
        return max(0, systemUptime - ticks / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    private static func seconds(_ value: timeval) -> Double {
        Double(value.tv_sec) + Double(value.tv_usec) / 1_000_000
    }
}
