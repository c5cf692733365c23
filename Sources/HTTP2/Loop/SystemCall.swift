internal import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// The result of a nonblocking system call: done, or it would have blocked (EAGAIN/EWOULDBLOCK).
enum IOResult<Value> {
    case done(Value)
    case wouldBlock
}

/// The one funnel for system calls in this module: retries EINTR, maps EAGAIN to `.wouldBlock`,
/// throws ``HTTP2SystemError`` (errno + function) for the rest. EBADF and EFAULT can only come from
/// a bug in this module (a closed descriptor, a bad pointer), never from a peer, so they trap.
enum SystemCall {
    @inline(__always)
    static func run<T: BinaryInteger>(_ function: StaticString, _ call: () -> T) throws(HTTP2SystemError) -> IOResult<T> {
        while true {
            let result = call()
            if result >= 0 { return .done(result) }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EBADF, EFAULT: preconditionFailure("\(function): \(String(cString: strerror(code))) (a bug in HTTP2)")
            default: throw HTTP2SystemError(code: code, function: "\(function)")
            }
        }
    }

    /// For calls that cannot block (epoll_ctl, setsockopt, ...): any failure is an error.
    @inline(__always)
    static func check(_ function: StaticString, _ call: () -> Int32) throws(HTTP2SystemError) {
        switch try run(function, call) {
        case .done: return
        case .wouldBlock: throw HTTP2SystemError(code: EAGAIN, function: "\(function)")
        }
    }
}

/// A file descriptor with exactly one owner, closed once (explicitly or in `deinit`).
final class FileDescriptor {
    private(set) var raw: Int32

    init(_ raw: Int32) { self.raw = raw }

    var isOpen: Bool { raw >= 0 }

    func close() {
        guard raw >= 0 else { return }
        // close(2) must not be retried on EINTR on Linux: the descriptor is released either way.
        _ = Glibc.close(raw)
        raw = -1
    }

    deinit { close() }
}

/// Monotonic time in nanoseconds.
@inline(__always)
func monotonicNow() -> UInt64 { csystem_monotonic_ns() }

extension Duration {
    /// Whole nanoseconds, clamped to zero for negative durations and to `Int64.max` (292 years)
    /// for huge ones, so that a deadline computed from it cannot wrap around.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        // Both components carry the sign (-5 ms is 0 s and -5e15 as).
        if seconds < 0 || attoseconds < 0 { return 0 }
        if seconds >= Int64.max / 1_000_000_000 { return UInt64(Int64.max) }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// The number of online processors (the default number of event loops).
func onlineProcessorCount() -> Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

/// Names the calling thread (visible in `top -H`, gdb); truncated to 15 bytes.
func setCurrentThreadName(_ name: String) { _ = csystem_set_thread_name(String(name.utf8.prefix(15))!) }
