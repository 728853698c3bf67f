import Foundation
import Testing

@testable import NetCore

/// `TransportRequest` and `RequestExecutor` keep their fields in one object that copies share until one of them
/// changes: a change to a copy must never show in the original, whichever field it touches.
@Suite struct CopyOnWriteTests {
    static func request() throws -> TransportRequest {
        var request = TransportRequest(
            head: try HTTPRequestHead(url: URL(string: "https://api.example.com/v1/items?page=1")!),
            body: UploadSource(data: Data("one".utf8)))
        try request.setHeader("Accept", "application/json")
        request.operationID = "listItems"
        return request
    }

    /// One change per field of the request, each applied to a copy.
    static let changes: [(name: String, change: @Sendable (inout TransportRequest) throws -> Void)] = [
        ("a header", { try $0.setHeader("Accept", "text/plain") }),
        ("the head's method", { $0.head.method = .post }),
        ("the target", { try $0.head.setURL(URL(string: "https://other.example.com/")!) }),
        ("the body", { $0.body = UploadSource(data: Data("two".utf8)) }),
        ("the progress", { $0.progress = NetworkProgress() }),
        ("the whole-body limits", { $0.wholeBody = WholeBodyLimits(success: 1, failure: 2) }),
        ("the idle timeout", { $0.idleTimeout = .seconds(3) }),
        ("the operation", { $0.operationID = "other" }),
        ("the credential fields", { $0.credentialFields = .header("X-Key") }),
        ("the credential fields, in place", { $0.credentialFields.formUnion(.queryItem("api_key")) }),
        ("a correlation field", { $0.markCorrelationHeader("X-Trace") }),
        ("the cookie jar's say", { $0.cookiesFromJar = true }),
    ]

    @Test("a change to a copy of a request leaves the original as it was", arguments: changes.indices)
    func requestCopies(_ index: Int) throws {
        let original = try Self.request()
        var copy = original
        try Self.changes[index].change(&copy)
        let untouched = try Self.request()
        #expect(original.head == untouched.head, "\(Self.changes[index].name)")
        #expect(original.body?.inMemoryData == untouched.body?.inMemoryData)
        #expect(original.progress == nil)
        #expect(original.wholeBody == nil)
        #expect(original.idleTimeout == nil)
        #expect(original.operationID == "listItems")
        #expect(original.credentialFields == .standard)
        #expect(!original.isCorrelationHeader("X-Trace"))
        #expect(!original.cookiesFromJar)
    }

    @Test("a request's credential fields start as the standard ones, and a change in place adds to them")
    func standardCredentialFields() throws {
        var request = try Self.request()
        #expect(request.credentialFields == .standard)
        request.credentialFields.formUnion(.header("X-Key"))
        #expect(request.credentialFields == CredentialFields.standard.union(.header("X-Key")))
        #expect(request.credentialFields.containsHeader("authorization"))
        #expect(request.credentialFields.containsHeader("x-key"))
    }

    @Test("a request changed in place keeps every change")
    func inPlace() throws {
        var request = try Self.request()
        for change in Self.changes { try change.change(&request) }
        #expect(request.head.method == .post)
        #expect(request.head.authority == "other.example.com")
        #expect(request.body?.inMemoryData == Data("two".utf8))
        #expect(request.wholeBody == WholeBodyLimits(success: 1, failure: 2))
        #expect(request.idleTimeout == .seconds(3))
        #expect(request.operationID == "other")
        #expect(request.isCorrelationHeader("X-Trace"))
        #expect(request.cookiesFromJar)
    }

    @Test("a change to a copy of an engine's settings leaves the original's")
    func engineCopies() {
        let original = RequestExecutor(transport: NoTransport(), responseLimit: 10)
        var copy = original
        copy.responseLimit = 20
        copy.configuration.errorPayloadLimit = 30
        #expect(original.responseLimit == 10)
        #expect(original.errorPayloadLimit == RequestExecutor.defaultErrorPayloadLimit)
        #expect(copy.responseLimit == 20)
        #expect(copy.errorPayloadLimit == 30)
    }

    struct NoTransport: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            throw CancellationError()
        }
    }
}
