#if OpenAPI && os(Linux)
import Foundation
import Glibc
@testable import NetOpenAPI
import Testing

/// How NetOpenAPI creates a gathered body's temporary file: the open flags and the mode, read as values.
@Suite("NetOpenAPI's temporary files: how they are created")
struct GatheredBodyTests {
    @Test("created here or not at all, 0600, not inherited by child processes")
    func openFlags() {
        #expect(GatheredBody.openFlags & O_CREAT != 0)
        #expect(GatheredBody.openFlags & O_EXCL != 0)
        #expect(GatheredBody.openFlags & O_CLOEXEC != 0)
        #expect(GatheredBody.fileMode == 0o600)
    }

    @Test("the file is 0600 and close-on-exec as soon as it exists")
    func createdFile() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("netkit-openapi-create-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (url, handle) = try GatheredBody.openTemporaryFile(in: scratch)
        defer { try? handle.close() }
        var info = stat()
        #expect(stat(url.path, &info) == 0)
        #expect(UInt32(info.st_mode) & 0o777 == 0o600)
        #expect(fcntl(handle.fileDescriptor, F_GETFD) & FD_CLOEXEC != 0)
    }
}
#endif
