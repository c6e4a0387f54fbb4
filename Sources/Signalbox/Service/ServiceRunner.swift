import Base
import Dispatch
import Foundation
import Logging
import Rx

/// Runs the service as a process: settings, logs, signals, exit.
///
/// SIGHUP reloads the settings; SIGTERM and SIGINT drain and stop, and
/// `run` returns so the process exits 0.
public enum ServiceRunner {
    public static func run(_ source: SettingsSource) async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings = try await source.load(environment: environment)
        LogSetup.bootstrap(format: settings.logFormat, level: settings.logLevel, queueLines: settings.logQueueLines)
        do {
            try await serve(settings, source: source)
        } catch {
            await LogSetup.flush()
            throw error
        }
        // Log lines are written in batches by the log writer: every one logged so far goes out before exit.
        await LogSetup.flush()
    }

    private static func serve(_ settings: Settings, source: SettingsSource) async throws {
        let logger = Logger(label: "signalbox")
        LargeAllocations.returnToTheSystemWhenFreed()
        let service = try await SignalboxService(settings: settings, logger: logger)
        try await service.catchUp()  // a cluster replica serves only once it has every change
        try service.start()  // the HTTP layer logs the address it listens on

        let signals = DispatchQueue(label: "signalbox.signals")
        var sources: [DispatchSourceSignal] = []
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let stopping = Locked(false)
            for signalNumber in [SIGTERM, SIGINT] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: signals)
                source.setEventHandler {
                    guard stopping.withLock({ stopping in defer { stopping = true }; return !stopping }) else {
                        // A second signal: do not wait out the rest of shutdown.notReadyDelay.
                        Task { await service.shutdown() }
                        return
                    }
                    logger.info("shutting down", metadata: ["signal": "\(signalNumber == SIGTERM ? "SIGTERM" : "SIGINT")"])
                    Task {
                        await service.shutdown()
                        done.resume()
                    }
                }
                source.activate()
                sources.append(source)
            }
            signal(SIGHUP, SIG_IGN)
            let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: signals)
            hangup.setEventHandler {
                Task {
                    do {
                        service.reload(try await source.load(environment: ProcessInfo.processInfo.environment))
                        logger.info("configuration reloaded")
                    } catch {
                        logger.error("configuration reload refused; keeping the running settings", metadata: ["error": "\(error)"])
                    }
                }
            }
            hangup.activate()
            sources.append(hangup)
        }
        for source in sources { source.cancel() }
    }
}
