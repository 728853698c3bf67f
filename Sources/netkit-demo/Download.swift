import Foundation
import NetKit

struct Dataset: NetworkRequest {
    typealias Response = Data
    var path: String { "/datasets/cities.csv" }
    var method: HTTPMethod { .get }
}

extension Demo {
    /// A download cut off mid-way, then resumed by the next call with `Range` and `If-Range`: the bytes on disk are
    /// kept, only the rest is fetched, and the whole file is checked against the server's `Repr-Digest`.
    func download() async throws {
        Output.section("A download cut off, then resumed where it stopped")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netkit-demo-download-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("cities.csv")

        do {
            _ = try await manager.download(Dataset(), to: destination)
            Output.line("the first download was not cut off")
        } catch DownloadError.interrupted(let state, _) {
            Output.line(
                "GET /datasets/cities.csv → cut off after \(state.bytesOnDisk) bytes; \(destination.lastPathComponent) "
                    + "does not exist, the bytes wait in \(state.partialFile.lastPathComponent)")
        }
        let file = try await manager.download(Dataset(), to: destination)
        let asked = server.routes.dataset.requests.map { ($0.range ?? "whole file") + " → \($0.status)" }
        Output.line("asked: " + asked.joined(separator: ", "))
        Output.line(
            "\(file.url.lastPathComponent): \(file.byteCount) bytes, SHA-256 \(file.sha256?.prefix(16) ?? "?")… as the "
                + "server's Repr-Digest says; the server sent \(server.routes.dataset.bodyBytesSent) body bytes in all")
    }
}
