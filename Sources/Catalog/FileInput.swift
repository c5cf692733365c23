// The module's only system calls: open(2), read(2), close(2), funnelled through one type so that
// EINTR is retried in one place and errors become CatalogIOError with the path and errno.

#if canImport(Glibc)
import Glibc
private let systemRead = Glibc.read
#elseif canImport(Musl)
import Musl
private let systemRead = Musl.read
#endif

/// A file (or standard input) open for reading. Closes its descriptor in `deinit`, except for
/// standard input, which it does not own.
final class FileInput {
    let path: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The size of a regular file when opened (nil for standard input and other streams): a hint
    /// for what reading it will hold, never a limit.
    let sizeHint: Int?

    /// Opens `path` for reading; "-" means standard input.
    init(path: String) throws(CatalogIOError) {
        self.path = path
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            sizeHint = nil
            return
        }
        var fd: Int32
        repeat {
            fd = open(path, O_RDONLY | O_CLOEXEC)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw CatalogIOError(path: path, operation: "open", errno: errno) }
        // A directory opens fine and only fails on read(2); say so at open, where users look.
        var status = stat()
        if fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw CatalogIOError(path: path, operation: "open", errno: EISDIR)
        }
        descriptor = fd
        ownsDescriptor = true
        sizeHint = (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Reads at most `buffer.count` bytes into `buffer`; returns how many, 0 at end of input.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CatalogIOError) -> Int {
        while true {
            let count = systemRead(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let code = errno
            switch code {
            case EINTR: continue
            case EBADF, EFAULT: preconditionFailure("read(2) failed with errno \(code): a bug in FileInput")
            default: throw CatalogIOError(path: path, operation: "read", errno: code)
            }
        }
    }
}
