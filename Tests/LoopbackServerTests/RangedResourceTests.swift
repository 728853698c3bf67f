import Foundation
import LoopbackServer
import NetKitDigest
import Testing

/// `LoopbackRangedResource` over real sockets: what a resumable download sees of a server's range support, and the
/// faults (cuts, truncation, corruption) it must survive.
@Suite("Ranged resource", .timeLimit(.minutes(10)))
struct RangedResourceTests {
    /// The size most tests use: several pattern periods, small enough to compare whole.
    private static let size = 10_000

    /// A resource of `byteCount` bytes served on a fresh server; the server stops when the test ends.
    private static func serve(
        byteCount: Int = size, _ configure: (LoopbackRangedResource) -> Void = { _ in }
    ) throws -> (LoopbackRangedResource, LoopbackServer) {
        let resource = LoopbackRangedResource(byteCount: byteCount)
        configure(resource)
        let server = try LoopbackServer { request in resource.respond(to: request) }
        return (resource, server)
    }

    /// A request head with these extra fields.
    private static func request(_ method: String = "GET", _ fields: [(String, String)] = []) -> String {
        "\(method) /file HTTP/1.1\r\nHost: x\r\n" + fields.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
    }

    /// Sends one request on a new connection and reads the whole response.
    private static func fetch(
        _ server: LoopbackServer, _ method: String = "GET", _ fields: [(String, String)] = []
    ) throws -> TestResponse {
        let client = try TestClient(port: server.port)
        try client.send(request(method, fields))
        return try client.readResponse(toHEAD: method == "HEAD")
    }

    /// The RFC 9530 field value of `bytes`' SHA-256, computed here independently of the server's streaming hash.
    private static func digestField(_ bytes: Data) -> String {
        "sha-256=:\(Data(SHA256.hash(bytes)).base64EncodedString()):"
    }

    @Test func aPlainGetIsAWhole200WithTheValidatorsAndAcceptRanges() throws {
        let (resource, server) = try Self.serve()
        defer { server.stop() }

        let response = try Self.fetch(server)

        #expect(response.status == 200)
        #expect(response.header("ETag") == "\"v1\"")
        #expect(response.header("Last-Modified") == "Sat, 01 Jan 2000 00:00:00 GMT")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(response.header("Content-Type") == "application/octet-stream")
        #expect(response.header("Content-Length") == "\(Self.size)")
        #expect(response.header("Content-Range") == nil)
        #expect(response.header("Repr-Digest") == nil)
        #expect(Data(response.body) == LoopbackBodyPattern.data(count: Self.size))
        #expect(
            resource.requests == [
                .init(
                    method: "GET", range: nil, ifRange: nil, status: 200, declaredLength: Self.size,
                    bodyBytesSent: Self.size, target: "/file")
            ])
        #expect(resource.bodyBytesSent == Self.size)
    }

    @Test func headHasTheHeadersAndIgnoresRange() throws {
        let (resource, server) = try Self.serve()
        defer { server.stop() }

        let response = try Self.fetch(server, "HEAD", [("Range", "bytes=100-")])

        #expect(response.status == 200)
        #expect(response.header("Content-Length") == "\(Self.size)")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(resource.requests.map(\.status) == [200])
        #expect(resource.bodyBytesSent == 0)
    }

    @Test func anOpenEndedRangeIsA206WithTheRestAndItsContentRange() throws {
        let (resource, server) = try Self.serve()
        defer { server.stop() }

        let response = try Self.fetch(server, "GET", [("Range", "bytes=100-")])

        #expect(response.status == 206)
        #expect(response.header("Content-Range") == "bytes 100-9999/10000")
        #expect(response.header("Content-Length") == "9900")
        #expect(response.header("ETag") == "\"v1\"")
        #expect(Data(response.body) == LoopbackBodyPattern.data(offset: 100, count: 9900))
        #expect(
            resource.requests == [
                .init(
                    method: "GET", range: "bytes=100-", ifRange: nil, status: 206, declaredLength: 9900,
                    bodyBytesSent: 9900, target: "/file")
            ])
    }

    @Test func closedRangesAreByteExactAndTheUnitIsCaseInsensitive() throws {
        let (_, server) = try Self.serve()
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        // Kept alive: each answer is framed exactly, or the next would not parse.
        try client.send(Self.request("GET", [("Range", "bytes=100-199")]))
        let middle = try client.readResponse()
        try client.send(Self.request("GET", [("Range", "BYTES=0-0")]))
        let first = try client.readResponse()
        try client.send(Self.request("GET", [("Range", "bytes=9990-20000")]))
        let clamped = try client.readResponse()

        #expect(middle.status == 206)
        #expect(middle.header("Content-Range") == "bytes 100-199/10000")
        #expect(Data(middle.body) == LoopbackBodyPattern.data(offset: 100, count: 100))
        #expect(first.header("Content-Range") == "bytes 0-0/10000")
        #expect(first.body == [0])
        #expect(clamped.header("Content-Range") == "bytes 9990-9999/10000")
        #expect(Data(clamped.body) == LoopbackBodyPattern.data(offset: 9990, count: 10))
    }

    @Test func aSuffixRangeOfAGibibyteResourceIsItsLastBytes() throws {
        let size = 1 << 30
        let (_, server) = try Self.serve(byteCount: size)
        defer { server.stop() }

        let response = try Self.fetch(server, "GET", [("Range", "bytes=-10")])

        #expect(response.status == 206)
        #expect(response.header("Content-Range") == "bytes \(size - 10)-\(size - 1)/\(size)")
        #expect(Data(response.body) == LoopbackBodyPattern.data(offset: size - 10, count: 10))
    }

    @Test func aSuffixLongerThanTheResourceIsAllOfIt() throws {
        let (_, server) = try Self.serve()
        defer { server.stop() }

        let response = try Self.fetch(server, "GET", [("Range", "bytes=-20000")])

        #expect(response.status == 206)
        #expect(response.header("Content-Range") == "bytes 0-9999/10000")
        #expect(Data(response.body) == LoopbackBodyPattern.data(count: Self.size))
    }

    @Test func aSliceAcrossPieceBoundariesKeepsThePattern() async throws {
        // The writer sends about 250 KiB per piece; this slice starts mid-period and spans three pieces.
        let first = 251 * 1024 - 5
        let count = 2 * 251 * 1024 + 17
        let (_, server) = try Self.serve(byteCount: 1 << 30)
        defer { server.stop() }

        let response = try await onDedicatedThread {
            try Self.fetch(server, "GET", [("Range", "bytes=\(first)-\(first + count - 1)")])
        }

        #expect(response.status == 206)
        #expect(response.body.count == count)
        #expect(Data(response.body) == LoopbackBodyPattern.data(offset: first, count: count))
    }

    @Test func ifRangeWithTheCurrentStrongTagLetsTheRangeThrough() throws {
        let (resource, server) = try Self.serve()
        defer { server.stop() }

        let response = try Self.fetch(server, "GET", [("Range", "bytes=5000-"), ("If-Range", "\"v1\"")])

        #expect(response.status == 206)
        #expect(Data(response.body) == LoopbackBodyPattern.data(offset: 5000, count: 5000))
        #expect(resource.requests.first?.ifRange == "\"v1\"")
    }

    @Test func ifRangeWithAnOldTagGetsTheWholeNewBody() throws {
        let (resource, server) = try Self.serve()
        defer { server.stop() }
        resource.etag = "\"v2\""

        let response = try Self.fetch(server, "GET", [("Range", "bytes=5000-"), ("If-Range", "\"v1\"")])

        #expect(response.status == 200)
        #expect(response.header("ETag") == "\"v2\"")
        #expect(response.header("Content-Range") == nil)
        #expect(Data(response.body) == LoopbackBodyPattern.data(count: Self.size))
        #expect(resource.requests.map(\.status) == [200])
    }

    @Test func aWeakTagNeverSatisfiesIfRange() throws {
        let (_, server) = try Self.serve { $0.etag = "W/\"v1\"" }
        defer { server.stop() }

        let sameWeak = try Self.fetch(server, "GET", [("Range", "bytes=5000-"), ("If-Range", "W/\"v1\"")])
        let strongAgainstWeak = try Self.fetch(server, "GET", [("Range", "bytes=5000-"), ("If-Range", "\"v1\"")])
        let plainRange = try Self.fetch(server, "GET", [("Range", "bytes=5000-")])

        #expect(sameWeak.header("ETag") == "W/\"v1\"")
        #expect(sameWeak.status == 200)
        #expect(sameWeak.body.count == Self.size)
        #expect(strongAgainstWeak.status == 200)
        // Without If-Range the weak tag does not matter.
        #expect(plainRange.status == 206)
    }

    @Test func ifRangeWithADateMustBeLastModifiedExactly() throws {
        let (_, server) = try Self.serve()
        defer { server.stop() }

        let exact = try Self.fetch(
            server, "GET", [("Range", "bytes=5000-"), ("If-Range", LoopbackRangedResource.defaultLastModified)])
        let later = try Self.fetch(
            server, "GET", [("Range", "bytes=5000-"), ("If-Range", "Sun, 02 Jan 2000 00:00:00 GMT")])

        #expect(exact.status == 206)
        #expect(later.status == 200)
        #expect(later.body.count == Self.size)
    }

    @Test func aRangeStartingAtOrPastTheEndIs416() throws {
        let (resource, server) = try Self.serve()
        defer { server.stop() }

        let atEnd = try Self.fetch(server, "GET", [("Range", "bytes=10000-")])
        let zeroSuffix = try Self.fetch(server, "GET", [("Range", "bytes=-0")])

        #expect(atEnd.status == 416)
        #expect(atEnd.header("Content-Range") == "bytes */10000")
        #expect(atEnd.body.isEmpty)
        #expect(zeroSuffix.status == 416)
        #expect(resource.requests.map(\.status) == [416, 416])
        #expect(resource.bodyBytesSent == 0)
    }

    @Test func severalOrMalformedRangesAreIgnored() throws {
        let (resource, server) = try Self.serve()
        defer { server.stop() }

        for value in ["bytes=0-1,5-6", "bytes=5-1", "items=0-5", "bytes=a-", "bytes 0-5"] {
            let response = try Self.fetch(server, "GET", [("Range", value)])
            #expect(response.status == 200, "Range: \(value)")
            #expect(response.body.count == Self.size, "Range: \(value)")
        }
        #expect(resource.requests.map(\.status) == Array(repeating: 200, count: 5))
    }

    @Test func aServerThatDoesNotAcceptRangesSaysNothingAndSendsItAll() throws {
        let (_, server) = try Self.serve { $0.acceptsRanges = false }
        defer { server.stop() }

        let response = try Self.fetch(server, "GET", [("Range", "bytes=100-")])

        #expect(response.status == 200)
        #expect(response.header("Accept-Ranges") == nil)
        #expect(Data(response.body) == LoopbackBodyPattern.data(count: Self.size))
    }

    @Test func aServerThatIgnoresRangesAdvertisesThemButSendsItAll() throws {
        let (_, server) = try Self.serve { $0.ignoresRanges = true }
        defer { server.stop() }

        let response = try Self.fetch(server, "GET", [("Range", "bytes=100-")])

        #expect(response.status == 200)
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(response.header("Content-Range") == nil)
        #expect(Data(response.body) == LoopbackBodyPattern.data(count: Self.size))
    }

    @Test func aCutDeliversExactlyThatManyBytesThenEndsTheConnection() throws {
        let (resource, server) = try Self.serve { $0.cuts = [1234, 10] }
        defer { server.stop() }

        let client = try TestClient(port: server.port)
        try client.send(Self.request())
        let head = try client.readHead()
        let received = try client.readUntilEOF()

        #expect(head.status == 200)
        #expect(head.headers.first { $0.name == "Content-Length" }?.value == "\(Self.size)")
        #expect(Data(received) == LoopbackBodyPattern.data(count: 1234))
        #expect(resource.cuts == [10])

        // The next cut applies to the resumption, counted in its own body bytes.
        let resumed = try TestClient(port: server.port)
        try resumed.send(Self.request("GET", [("Range", "bytes=1234-"), ("If-Range", "\"v1\"")]))
        let resumedHead = try resumed.readHead()
        let resumedBody = try resumed.readUntilEOF()
        // The queue is empty now: a third response is whole.
        let whole = try Self.fetch(server, "GET", [("Range", "bytes=1234-")])

        #expect(resumedHead.status == 206)
        #expect(Data(resumedBody) == LoopbackBodyPattern.data(offset: 1234, count: 10))
        #expect(whole.body.count == Self.size - 1234)
        #expect(resource.requests.map(\.bodyBytesSent) == [1234, 10, Self.size - 1234])
        #expect(resource.requests.map(\.declaredLength) == [Self.size, Self.size - 1234, Self.size - 1234])
        #expect(resource.bodyBytesSent == Self.size + 10)
    }

    @Test func truncationRepeatsOnEveryResponse() throws {
        let (resource, server) = try Self.serve { $0.truncatesTo = 300 }
        defer { server.stop() }

        var bodies: [[UInt8]] = []
        for first in [0, 300] {
            let client = try TestClient(port: server.port)
            try client.send(Self.request("GET", [("Range", "bytes=\(first)-")]))
            _ = try client.readHead()
            bodies.append(try client.readUntilEOF())
        }

        #expect(Data(bodies[0]) == LoopbackBodyPattern.data(offset: 0, count: 300))
        #expect(Data(bodies[1]) == LoopbackBodyPattern.data(offset: 300, count: 300))
        #expect(resource.requests.map(\.bodyBytesSent) == [300, 300])
    }

    @Test func reprDigestIsTheSHA256OfTheWholeRepresentationEvenIn206s() throws {
        let (_, server) = try Self.serve { $0.sendsReprDigest = true }
        defer { server.stop() }
        let expected = Self.digestField(LoopbackBodyPattern.data(count: Self.size))

        let whole = try Self.fetch(server)
        let slice = try Self.fetch(server, "GET", [("Range", "bytes=100-")])

        #expect(whole.header("Repr-Digest") == expected)
        #expect(slice.header("Repr-Digest") == expected)
        #expect(whole.header("Content-Digest") == nil)
    }

    @Test func contentDigestIsTheSHA256OfWhatTheResponseHolds() throws {
        let (_, server) = try Self.serve { $0.sendsContentDigest = true }
        defer { server.stop() }

        let whole = try Self.fetch(server)
        let slice = try Self.fetch(server, "GET", [("Range", "bytes=100-4099")])

        #expect(whole.header("Content-Digest") == Self.digestField(LoopbackBodyPattern.data(count: Self.size)))
        #expect(slice.header("Content-Digest") == Self.digestField(LoopbackBodyPattern.data(offset: 100, count: 4000)))
        #expect(slice.header("Content-Digest") == Self.digestField(Data(slice.body)))
        #expect(slice.header("Repr-Digest") == nil)
    }

    @Test func aCorruptedByteIsInvertedAndTheDigestNoLongerMatches() throws {
        let (_, server) = try Self.serve {
            $0.corruptsByteAt = 500
            $0.sendsContentDigest = true
        }
        defer { server.stop() }

        let covering = try Self.fetch(server, "GET", [("Range", "bytes=400-599")])
        let past = try Self.fetch(server, "GET", [("Range", "bytes=501-")])

        var expected = [UInt8](LoopbackBodyPattern.data(offset: 400, count: 200))
        expected[100] = ~expected[100]
        #expect(covering.body == expected)
        #expect(covering.body.count == 200)
        #expect(
            covering.header("Content-Digest") == Self.digestField(LoopbackBodyPattern.data(offset: 400, count: 200)))
        #expect(covering.header("Content-Digest") != Self.digestField(Data(covering.body)))
        #expect(Data(past.body) == LoopbackBodyPattern.data(offset: 501, count: Self.size - 501))
    }

    @Test func otherMethodsAre405() throws {
        let (resource, server) = try Self.serve()
        defer { server.stop() }

        let response = try Self.fetch(server, "POST")

        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
        #expect(resource.requests.map(\.status) == [405])
    }

    @Test func writePatternFromAnOffsetContinuesThePatternThere() throws {
        let server = try makeServer(
            .streamed { writer in
                writer.writePattern(from: 1000, byteCount: 1)
                writer.writePattern(from: 1001, byteCount: 600_000)
            })
        defer { server.stop() }
        let client = try TestClient(port: server.port)

        try client.send(Self.request())
        let response = try client.readResponse()

        #expect(Data(response.body) == LoopbackBodyPattern.data(offset: 1000, count: 600_001))
    }
}
