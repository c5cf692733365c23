internal import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket, on loop 0, handing accepted connections to the loops round robin.
///
/// Why one acceptor rather than an SO_REUSEPORT listener per loop: HTTP/2 connections are few and
/// long-lived (many streams each), so accepting is never the bottleneck; one acceptor keeps the
/// max-connections count exact, makes port 0 trivial (one bind), and avoids SO_REUSEPORT's
/// pitfalls (the kernel's hash cannot rebalance, and closing one listener during shutdown drops
/// the connections queued on it). The cost is one cross-thread hop per new connection.
final class Acceptor: Selectable {
    let context: ServerContext
    let loop: EventLoop
    private let fd: FileDescriptor
    private var token: UInt64 = 0
    private var pausedUntilTimer = false
    /// The round-robin position over the group's loops. The server's own rather than the group's
    /// `next()`: with a shared group, other users of that would skew this server's spread.
    private var nextLoop = 0

    init(context: ServerContext, loop: EventLoop, fd: Int32) {
        self.context = context
        self.loop = loop
        self.fd = FileDescriptor(fd)
    }

    func register() throws(HTTP2SystemError) {
        token = try loop.register(self, fd: fd.raw, events: CSYSTEM_EPOLLIN)
    }

    func ready(_ events: UInt32) {
        // Bounded batch per wakeup; level-triggered, so the rest is reported again.
        for _ in 0..<64 {
            let accepted: Int32
            do {
                guard case .done(let client) = try SystemCall.run("accept4", { csystem_accept(fd.raw) }) else { return }
                accepted = client
            } catch {
                switch error.code {
                case ECONNABORTED, EPROTO, EPERM:
                    continue  // that one connection failed before we got it
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors or memory: the pending connection stays readable, so back
                    // off instead of spinning on a level-triggered listener.
                    context.logger.warning("accept paused for 100 ms: \(error)")
                    pause()
                    return
                default:
                    context.logger.error("accept failed: \(error)")
                    return
                }
            }
            let count = context.connectionCount.wrappingAdd(1, ordering: .relaxed).newValue
            if count > context.configuration.maxConnections {
                // Refuse: accepting and closing tells the client at once (a full backlog would
                // leave it hanging until its connect timeout).
                _ = Glibc.close(accepted)
                context.connectionCount.subtract(1, ordering: .relaxed)
                context.logger.warning("connection refused: \(context.configuration.maxConnections) connections open")
                continue
            }
            let loops = context.group.loops
            let target = loops[nextLoop % loops.count]
            nextLoop &+= 1
            if target === loop {
                context.adopt(accepted, on: target)
            } else {
                let context = self.context
                let handedOver = target.execute { context.adopt(accepted, on: target) }
                if !handedOver {
                    _ = Glibc.close(accepted)
                    context.connectionCount.subtract(1, ordering: .relaxed)
                }
            }
        }
    }

    private func pause() {
        guard !pausedUntilTimer, fd.isOpen else { return }
        pausedUntilTimer = true
        try? loop.reregister(token: token, fd: fd.raw, events: 0)
        loop.schedule(in: 100_000_000) { [weak self] in
            guard let self, self.fd.isOpen else { return }
            self.pausedUntilTimer = false
            try? self.loop.reregister(token: self.token, fd: self.fd.raw, events: CSYSTEM_EPOLLIN)
        }
    }

    func loopIsExiting() { close() }

    func close() {
        guard fd.isOpen else { return }
        loop.deregister(token: token, fd: fd.raw)
        fd.close()
    }
}

func csystemSetNoDelay(_ fd: Int32) -> Int32 { csystem_set_nodelay(fd) }
