import Foundation
import OpenAPIRuntime
import Testing
import TodosAPI
import TodosServer

@Suite("Multipart upload", .timeLimit(.minutes(1)))
struct AvatarUploadTests {
    @Test("a 1 MiB file part and a text part arrive intact, in order")
    func multipartArrivesIntact() async throws {
        // A pattern that does not repeat every 256 bytes, so a moved block changes the checksum.
        let image = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        let caption = "Me, on a good day ✓"

        try await LocalTodosServer.run { baseURL, _ in
            let client = TodosClients.client(baseURL: baseURL)
            let output = try await client.uploadAvatar(
                body: .multipartForm([
                    .image(.init(payload: .init(body: HTTPBody(image)), filename: "avatar.bin")),
                    .caption(.init(payload: .init(body: HTTPBody(caption)))),
                ])
            )
            let parts = try output.ok.body.json.parts

            #expect(parts.count == 2)
            #expect(
                parts.first
                    == .init(name: "image", filename: "avatar.bin", byteCount: 1 << 20, checksum: FNV1a.hex(of: image))
            )
            #expect(
                parts.last
                    == .init(
                        name: "caption", filename: nil, byteCount: caption.utf8.count,
                        checksum: FNV1a.hex(of: caption.utf8))
            )
        }
    }
}
