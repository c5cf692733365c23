#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Writes each record as one line to standard error, in logfmt or JSON Lines.
///
/// Each line (with its newline) is formatted into one buffer and handed to one write(2), under a
/// process-wide lock. The single write keeps lines whole against other processes sharing the
/// descriptor (atomic for pipes up to PIPE_BUF, 4 KiB); the lock keeps them whole among this
/// process's threads even when a long line needs several writes. Errors other than `EINTR` (a
/// closed pipe, a full disk) drop the line: logging must never take the service down.
///
/// Cost: O(line length) formatting plus one system call per record.
///
/// ```swift
/// let logger = Logger(label: "node", sink: StandardErrorSink(format: .jsonLines))
/// ```
public final class StandardErrorSink: LogSink {
    /// The line format.
    public let format: LogFormat
    private let fileDescriptor: Int32

    /// Serialises writers across all instances: they share one descriptor, so one lock.
    private static let lock = Mutex(())

    /// Creates a sink that writes `format` lines to standard error (descriptor 2).
    public convenience init(format: LogFormat = .logfmt) {
        self.init(format: format, fileDescriptor: 2)
    }

    /// For tests: write to another descriptor (a file or a pipe). The caller owns `fileDescriptor`.
    init(format: LogFormat, fileDescriptor: Int32) {
        self.format = format
        self.fileDescriptor = fileDescriptor
    }

    public func write(_ record: LogRecord) {
        var line: [UInt8] = []
        format.encode(record, into: &line)
        line.append(UInt8(ascii: "\n"))
        Self.lock.withLock { _ in
            line.withUnsafeBytes { writeFully($0) }
        }
    }

    private func writeFully(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// At file scope so that `write` means the C function, not `StandardErrorSink.write(_:)`.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
