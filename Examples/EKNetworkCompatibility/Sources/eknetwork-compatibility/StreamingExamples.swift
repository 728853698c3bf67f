import NetKit

// MARK: From "Streaming (NDJSON / SSE)", as the reference writes them

enum DeviceHeaders {
    static func current() -> [String: String] { ["X-Device-ID": "compat-device"] }
}

enum SearchEvent: Decodable {
    case player(String)
    case end

    private enum CodingKeys: String, CodingKey { case type, name }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "player": self = .player(try container.decode(String.self, forKey: .name))
        default: self = .end
        }
    }
}

struct PlayerSearchRequest: NetworkRequest {
    typealias Response = EmptyResponse  // unused for streaming
    var path: String { "/api/v1/players/search" }
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]? { ["q": query, "stream": "true"] }
    var headers: [String: String]? { DeviceHeaders.current() }
    let query: String
}

struct MyEventsRequest: NetworkRequest {
    typealias Response = EmptyResponse
    var path: String { "/events" }
    var method: HTTPMethod { .get }
}

/// The `URLSessionStreamingProtocol` mock the reference suggests for testing the streaming pipeline.
///
/// `@unchecked Sendable`, as a Swift 5 era mock would be: its one stored property is read and written only inside
/// `lock.withLock`.
final class MockStreamingSession: URLSessionStreamingProtocol, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [URLRequest] = []

    var requests: [URLRequest] { lock.withLock { seen } }

    func byteStream(for request: URLRequest) async throws -> (AsyncThrowingStream<UInt8, Error>, URLResponse) {
        lock.withLock { seen.append(request) }
        let body: String =
            switch request.url?.path {
            case "/api/v1/players/search":
                #"{"type":"player","name":"Bobr"}"# + "\n" + #"{"type":"player","name":"Bobrova"}"# + "\n"
                    + #"{"type":"end"}"# + "\n"
            default:
                "data: first\r\n\r\n: a comment\r\ndata:  second \r\n\r\n"
            }
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!
        let bytes = AsyncThrowingStream<UInt8, Error> { continuation in
            for byte in Data(body.utf8) { continuation.yield(byte) }
            continuation.finish()
        }
        return (bytes, response)
    }
}

func handle(_ item: SearchEvent, into names: inout [String]) {
    if case .player(let name) = item { names.append(name) }
}

func process(_ payload: String, into payloads: inout [String]) {
    payloads.append(payload)
}
