import Foundation
import NetKit

struct UploadAttachment: NetworkRequest {
    struct Receipt: Decodable, Sendable {
        let parts: Int
        let fileBytes: Int
    }
    typealias Response = Receipt
    let form: MultipartFormData
    let progress: NetworkProgress?
    var path: String { "/attachments" }
    var method: HTTPMethod { .post }
    var multipartData: MultipartFormData? { form }
}

extension Demo {
    /// A generated file goes up as a multipart part, read piece by piece while it is sent, with live progress.
    func upload() async throws {
        Output.section("Multipart upload of a generated file, with progress")
        let size = 6 << 20
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netkit-demo-\(ProcessInfo.processInfo.processIdentifier).bin")
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        var form = MultipartFormData()
        form.addField(name: "note", value: "quarterly numbers")
        try form.addPart(name: "file", fileURL: file, mimeType: "application/octet-stream")
        let progress = NetworkProgress()
        let display = Task { await Self.show(progress) }
        let receipt = try await manager.send(UploadAttachment(form: form, progress: progress))
        await display.value
        Output.line(
            "POST /attachments → the server parsed \(receipt.parts) parts, \(receipt.fileBytes) bytes of file (sent \(size))"
        )
        Output.line("server: \(server.sinceLastLook().summary)")
    }

    /// A bar redrawn in place on a terminal; piped, a line at each quarter, so that a log stays short.
    private static func show(_ progress: NetworkProgress) async {
        var nextQuarter = 1
        for await fraction in progress.updates {
            let percent = Int((fraction * 100).rounded(.down))
            if Output.isTerminal {
                let filled = percent * 30 / 100
                let sent = Double(progress.bytesSent) / 1_048_576
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
                Output.redraw("[\(bar)] \(percent)%  \(String(format: "%.1f", sent)) MiB")
            } else {
                while nextQuarter <= 4, percent >= nextQuarter * 25 {
                    Output.line("uploaded \(nextQuarter * 25)%")
                    nextQuarter += 1
                }
            }
        }
        if Output.isTerminal { Output.endRedraw() }
    }
}
