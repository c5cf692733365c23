import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One supervised process of a local cluster (a node or the coordinator): started with its
/// output appended to a log file, restarted one second after an unexpected exit (like systemd's
/// `Restart=on-failure`), stopped with SIGTERM and, after a grace period, SIGKILL.
///
/// Thread-safe: the state is behind a mutex; Foundation calls the termination handler on a
/// thread of its own.
public final class ChildProcess: Sendable {
    public let name: String
    public let executable: String
    public let logPath: String
    private struct State {
        var arguments: [String]
        var process: Process?
        var stopping = false
        var restarts = 0
    }
    private let state: Mutex<State>
    /// Told about unexpected exits (for the supervisor's own log line).
    private let onExit: @Sendable (String) -> Void

    public init(name: String, executable: String, arguments: [String], logPath: String,
                onExit: @escaping @Sendable (String) -> Void = { _ in }) {
        self.name = name
        self.executable = executable
        self.logPath = logPath
        self.onExit = onExit
        state = Mutex(State(arguments: arguments))
    }

    /// The process id while running.
    public var pid: Int32? {
        state.withLock { state in state.process.flatMap { $0.isRunning ? $0.processIdentifier : nil } }
    }

    /// How many times it was restarted after an unexpected exit.
    public var restarts: Int { state.withLock { $0.restarts } }

    /// Replaces the arguments of later (re)starts (a node restarts on the port it first bound).
    public func setArguments(_ arguments: [String]) {
        state.withLock { $0.arguments = arguments }
    }

    public func start() throws {
        let arguments = state.withLock { $0.arguments }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [weak self] finished in
            try? log.close()
            self?.exited(finished)
        }
        try process.run()
        state.withLock { $0.process = process }
    }

    private func exited(_ process: Process) {
        let restart = state.withLock { state -> Bool in
            guard state.process === process, !state.stopping else { return false }
            state.process = nil
            state.restarts += 1
            return true
        }
        guard restart else { return }
        let how = process.terminationReason == .uncaughtSignal ? "signal \(process.terminationStatus)" : "status \(process.terminationStatus)"
        onExit("\(name) exited (\(how)); restarting it in 1 s (log: \(logPath))")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, !self.state.withLock({ $0.stopping }) else { return }
            do {
                try self.start()
            } catch {
                self.onExit("\(self.name) could not be restarted: \(error)")
            }
        }
    }

    /// SIGTERM, then SIGKILL once `grace` has passed; returns when the process is gone.
    public func stop(grace: Duration = .seconds(10)) {
        let process = state.withLock { state -> Process? in
            state.stopping = true
            return state.process
        }
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let end = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < end { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Sends a signal (tests kill nodes with SIGKILL to see failover).
    public func signal(_ number: Int32) {
        if let pid { kill(pid, number) }
    }
}
