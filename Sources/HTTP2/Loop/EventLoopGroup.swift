import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// N event loops, each on its own thread, handed out round robin.
final class EventLoopGroup: Sendable {
    let loops: [EventLoop]
    private let threads: Mutex<[pthread_t]>
    private let cursor = Atomic<Int>(0)

    init(threadCount: Int, name: String, logger: HTTP2Logger) throws(HTTP2SystemError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, threadCount) { loops.append(try EventLoop(index: index, logger: logger)) }
        self.loops = loops
        var threads: [pthread_t] = []
        for loop in loops {
            // The thread body is @Sendable: a closure literal here would otherwise be inferred to be
            // isolated to the caller's actor (e.g. @MainActor from main.swift) and trap off it.
            let threadName = "\(name)-\(loop.index)"
            let body: @Sendable () -> Void = {
                setCurrentThreadName(threadName)
                loop.run()
            }
            do {
                threads.append(try startThread(body))
            } catch {
                for (started, loop) in zip(threads, loops) {
                    loop.stop()
                    pthread_join(started, nil)
                }
                throw error
            }
        }
        self.threads = Mutex(threads)
    }

    func next() -> EventLoop {
        loops[cursor.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Waits for every loop thread to return (after their loops were stopped). Must not be called
    /// on one of the loop threads.
    func join() {
        precondition(!loops.contains { $0.inEventLoop }, "EventLoopGroup.join called on one of its loops")
        let threads = self.threads.withLock { threads in
            defer { threads = [] }
            return threads
        }
        for thread in threads { pthread_join(thread, nil) }
    }

    func stopAndJoin() {
        for loop in loops { loop.stop() }
        join()
    }
}

private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

private func startThread(_ body: @escaping @Sendable () -> Void) throws(HTTP2SystemError) -> pthread_t {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { context in
        let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
        body.body()
        return nil
    }, context)
    if rc != 0 {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        throw HTTP2SystemError(code: rc, function: "pthread_create")
    }
    return thread
}
