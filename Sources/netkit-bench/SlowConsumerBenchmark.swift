import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import NetKit

/// `slowconsumer`: the peak resident memory of a process that streams a large body and reads it slowly, against
/// an idle process that made one request, each in a fresh child process (the benchmark runs itself again with
/// the hidden ``SlowConsumerChild/command``). The server runs in the parent, so the children hold only the client.
enum SlowConsumerBenchmark {
    /// A 200 MB body: much more than the buffer limit, small enough to hold whole when no limit applies.
    static let bodySize = 200_000_000
    /// How long a slow consumer stays slow (one pause per chunk), before it reads at full speed.
    static let slowPhase = Duration.seconds(2)
    /// The pause per chunk of a slow consumer.
    static let pause = Duration.milliseconds(10)

    struct Scenario {
        let name: String
        let arguments: [String]
    }

    struct Outcome {
        let result: String
        let bytes: Int
        let peakKiB: Int
        let seconds: Double
    }

    static func run(rounds: Int) async throws {
        let server = try LoopbackServer { TransferRoutes.handle($0) }
        defer { server.stop() }
        let url = server.baseURL.absoluteString
        let sixteen = URLSessionTransport.defaultBufferLimit
        let scenarios = [
            Scenario(name: "idle: one small request, nothing streamed", arguments: ["idle", url, "\(sixteen)"]),
            Scenario(
                name: "consumer keeps up, bufferLimit 16 MiB (default)", arguments: ["keepup", url, "\(sixteen)"]),
            Scenario(name: "slow consumer, bufferLimit 16 MiB (default)", arguments: ["slow", url, "\(sixteen)"]),
            Scenario(name: "slow consumer, bufferLimit 64 MiB", arguments: ["slow", url, "\(64 << 20)"]),
            Scenario(name: "slow consumer, no limit (`bufferLimit: .max`)", arguments: ["slow", url, "\(Int.max)"]),
        ]
        var outcomes = Array(repeating: [Outcome](), count: scenarios.count)
        // Interleaved, so a neighbour's load spreads over every scenario.
        for _ in 0..<rounds {
            for (index, scenario) in scenarios.enumerated() {
                outcomes[index].append(try runChild(scenario.arguments))
            }
        }
        func medianPeak(_ runs: [Outcome]) -> Double {
            Double(runs.map(\.peakKiB).sorted()[runs.count / 2]) / 1024
        }
        let idle = medianPeak(outcomes[0])
        print(
            "## slowconsumer: \(format(Double(bodySize) / 1e6, 0)) MB streamed by a fresh child process, \(rounds) runs each, medians"
        )
        print(
            "Slow: a \(pause.components.attoseconds / 1_000_000_000_000_000) ms pause per chunk for the first \(slowPhase.components.seconds) s, then full speed."
        )
        print("| scenario | outcome | bytes read | peak RSS (VmHWM) | above idle | time |")
        print("| --- | --- | --- | --- | --- | --- |")
        for (scenario, runs) in zip(scenarios, outcomes) {
            let results = Set(runs.map(\.result)).sorted().joined(separator: ", ")
            let bytes = runs.map(\.bytes).sorted()[runs.count / 2]
            let seconds = runs.map(\.seconds).sorted()[runs.count / 2]
            let peak = medianPeak(runs)
            print(
                "| \(scenario.name) | \(results) | \(bytes) | \(format(peak, 1)) MiB (\(runs.map { format(Double($0.peakKiB) / 1024, 1) }.joined(separator: ", "))) | \(format(peak - idle, 1)) MiB | \(format(seconds, 2)) s |"
            )
        }
        print("")
    }

    /// Runs the benchmark binary again with the hidden command and reads its one result line.
    static func runChild(_ arguments: [String]) throws -> Outcome {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [SlowConsumerChild.command] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RESULT ") })
        else {
            fatalError("slowconsumer: the child \(arguments) failed (status \(process.terminationStatus)): \(text)")
        }
        var fields: [String: String] = [:]
        for field in line.split(separator: " ").dropFirst() {
            let pair = field.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let result = fields["outcome"], let bytes = fields["bytes"].flatMap(Int.init),
            let peak = fields["peak_kib"].flatMap(Int.init), let seconds = fields["seconds"].flatMap(Double.init)
        else { fatalError("slowconsumer: unreadable child result: \(line)") }
        return Outcome(result: result, bytes: bytes, peakKiB: peak, seconds: seconds)
    }
}

/// The child side of `slowconsumer`: `netkit-bench __slowconsumer-child <idle|keepup|slow> <base URL> <bufferLimit>`.
/// Prints `RESULT outcome=… bytes=… peak_kib=… seconds=…` and exits.
enum SlowConsumerChild {
    static let command = "__slowconsumer-child"

    nonisolated static func run(_ arguments: [String]) async throws {
        guard arguments.count == 3, let base = URL(string: arguments[1]), let limit = Int(arguments[2]) else {
            fatalError("usage: \(command) <idle|keepup|slow> <base URL> <bufferLimit>")
        }
        let mode = arguments[0]
        let manager = NetworkManager(baseURL: base, transport: URLSessionTransport(bufferLimit: limit))
        let start = ContinuousClock.now
        var bytes = 0
        var outcome = "completed"
        if mode == "idle" {
            let response = try await manager.stream(TransferRequest(path: "/small"))
            for try await chunk in response.chunks { bytes += chunk.count }
        } else {
            let slowUntil = mode == "slow" ? start + SlowConsumerBenchmark.slowPhase : start
            do {
                let response = try await manager.stream(
                    TransferRequest(path: "/bulk/\(SlowConsumerBenchmark.bodySize)"))
                for try await chunk in response.chunks {
                    bytes += chunk.count
                    if ContinuousClock.now < slowUntil { try await Task.sleep(for: SlowConsumerBenchmark.pause) }
                }
                if bytes != SlowConsumerBenchmark.bodySize { outcome = "short:\(bytes)" }
            } catch let error as StreamingError {
                outcome = if case .bufferLimitExceeded = error { "bufferLimitExceeded" } else { "StreamingError" }
            } catch {
                outcome = "error:\(type(of: error))"
            }
        }
        let seconds = Measurement.seconds(ContinuousClock.now - start)
        let peak = peakResidentMiB().map { Int($0 * 1024) } ?? -1
        print("RESULT outcome=\(outcome) bytes=\(bytes) peak_kib=\(peak) seconds=\(format(seconds, 3))")
    }
}
