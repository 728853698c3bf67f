import Foundation
import LoopbackServer
import NetCore
import NetStreaming

/// A file uploaded with `stream()`, its answer read as it arrives (Alamofire #3974: upload a file and stream the
/// response): the same line on every transport, checked over 127.0.0.1.
package enum UploadStreamCheck {
    /// What every transport must report.
    package static let expected =
        "received 2097152 bytes, the same bytes; lines: received, step 1, step 2, step 3, done; ended cleanly"

    /// A `POST /process` of a file.
    struct Process: Endpoint {
        typealias Response = Data
        let file: URL
        var path: String { "/process" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { try? RequestBody(fileURL: file) }
    }

    /// Uploads a 2 MiB file over `transport` and reads the NDJSON-like answer line by line.
    package static func run(on transport: any HTTPTransport) async throws -> String {
        let bytes = LoopbackBodyPattern.data(count: 2 << 20)
        // The server compares what it received with what was sent, on its own thread: no digest on the test's.
        let server = try LoopbackServer { request in
            let received = "received \(request.body.count) \(request.body == bytes ? "same" : "other")"
            return .streamed(headers: [(name: "Content-Type", value: "application/x-ndjson")]) { writer in
                guard writer.write(received + "\n") else { return }
                for step in 1...3 {
                    guard writer.write("step \(step)\n") else { return }
                }
                _ = writer.write("done\n")
            }
        }
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-upload-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        try bytes.write(to: file)

        let response = try await RequestExecutor(transport: transport).stream(
            Process(file: file), baseURL: server.baseURL)
        var lines: [String] = []
        for try await line in response.lines() { lines.append(line) }
        let received =
            lines.first == "received \(bytes.count) same"
            ? "received \(bytes.count) bytes, the same bytes" : "received \(lines.first ?? "nothing")"
        let names = lines.map { $0.hasPrefix("received") ? "received" : $0 }
        return "\(received); lines: \(names.joined(separator: ", ")); ended cleanly"
    }
}
