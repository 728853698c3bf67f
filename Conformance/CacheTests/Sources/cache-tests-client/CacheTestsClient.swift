// cache-tests-client: sends the cache-tests suite's requests through NetKit's engine and its ResponseCache.
//
//   cache-tests-client urlsession|ahc
//
// With CACHE_TESTS_STORE=disk in its environment, the cache keeps its entries on disk (a new temporary directory)
// instead of in memory.
// Reads one JSON object a line on standard input and answers each with one line on standard output, in the order
// the answers are ready (requests run concurrently, each in its own task):
//
//   in:  {"id":1,"method":"GET","url":"http://127.0.0.1:8000/test/…","headers":[["Name","value"]],"body":null}
//        {"id":1,"cancel":true}     (the fetch was aborted: the request's task is cancelled)
//   out: {"id":1,"status":200,"statusText":"OK","headers":[["name","value"]],"body":"<base64>"}
//        {"id":1,"error":"…"}
//
// One engine, so one cache, for the whole process, as a browser has one. Every status comes back as a response:
// the request goes down `send`'s road (`RequestExecutor.response(for:baseURL:)`), the only road on
// which the cache answers and stores; a status that is not 2xx comes out of that road as the `HTTPError` that
// carries its status, header fields and body, and is turned back into a response here.
import Foundation
import NetAsyncHTTPClient
import NetKit
import Synchronization

// MARK: The wire format

struct Incoming: Decodable {
    var id: Int
    var cancel: Bool?
    var method: String?
    var url: String?
    var headers: [[String]]?
    var body: String?
}

struct Outgoing: Encodable {
    var id: Int
    var status: Int?
    var statusText: String?
    var headers: [[String]]?
    var body: String?
    var error: String?
}

// MARK: The request as NetKit sees it

/// The response of any status, as it arrived or as the cache gave it.
struct RawResponse: Decodable, Sendable {
    var head: HTTPResponseHead
    var body: Data

    init(head: HTTPResponseHead, body: Data) {
        self.head = head
        self.body = body
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "built by the endpoint only"))
    }
}

/// One request of the suite, sent to its own absolute URL (query included) with exactly the suite's fields.
struct SuiteRequest: Endpoint {
    typealias Response = RawResponse

    let target: URL
    let requestMethod: HTTPRequestMethod
    let fields: HTTPHeaderFields
    let payload: Data?

    var path: String { "" }
    // EKNetwork's protocol asks for one of its methods; `requestMethod` is what is sent.
    var method: HTTPMethod { requestMethod.knownMethod ?? .post }
    var baseURL: URL? { target }
    var headerFields: HTTPHeaderFields { fields }
    // NetKit's builder puts a Content-Type on every request, one without a body too: the suite's own when it names
    // one, else the neutral one (not the builder's default, JSON).
    var contentType: String { fields.value(for: "Content-Type") ?? "application/octet-stream" }
    var body: RequestBody? { payload.map { RequestBody(data: $0, contentType: contentType) } }
    // A browser repeats nothing on its own: a retry would show as one (the suite's `Request-Numbers` check).
    var allowsRetry: Bool { false }
    var timeout: Duration? { .seconds(30) }

    func decode(_ response: ReceivedResponse, decoder: JSONDecoder?) throws -> RawResponse {
        RawResponse(head: response.head, body: response.body ?? Data())
    }
}

enum ClientError: Error, CustomStringConvertible {
    case badLine(String)
    case unsupportedMethod(String)
    case badURL(String)
    case badBody

    var description: String {
        switch self {
        case .badLine(let text): "bad request line: \(text)"
        case .unsupportedMethod(let method): "\(method) is not an HTTP method token"
        case .badURL(let url): "bad URL \(url)"
        case .badBody: "the body is not base64"
        }
    }
}

// MARK: The client

/// The engine, its one cache, and the requests in flight.
final class Client: Sendable {
    let executor: RequestExecutor
    let ahcTransport: AsyncHTTPClientTransport?
    /// The requests in flight, by id, so that an aborted fetch cancels its task.
    let running = Mutex<[Int: Task<Void, Never>]>([:])
    let output = Mutex(FileHandle.standardOutput)

    init(transportName: String) {
        let transport: any HTTPTransport
        if transportName == "ahc" {
            let ahc = AsyncHTTPClientTransport()
            ahcTransport = ahc
            transport = ahc
        } else {
            // The session's own URLCache is off, so that the only cache under test is NetKit's.
            let configuration = URLSessionConfiguration.default
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            ahcTransport = nil
            transport = URLSessionTransport(configuration: configuration)
        }
        var configuration = RequestExecutor.Configuration()
        configuration.responseCache = ResponseCache(maximumBytes: 64 << 20)
        if ProcessInfo.processInfo.environment["CACHE_TESTS_STORE"] == "disk" {
            // The same rules over the store on disk: every entry written as bytes and read back from its file.
            let directory = FileManager.default.temporaryDirectory.appending(path: "cache-tests-\(UUID().uuidString)")
            do {
                configuration.responseCache = try ResponseCache(directory: directory, maximumBytes: 64 << 20)
            } catch {
                FileHandle.standardError.write(Data("cache-tests-client: \(error.localizedDescription)\n".utf8))
                exit(1)
            }
        }
        executor = RequestExecutor(transport: transport, configuration: configuration)
    }

    func write(_ answer: Outgoing) {
        guard var line = try? JSONEncoder().encode(answer) else { return }
        line.append(UInt8(ascii: "\n"))
        output.withLock { $0.write(line) }
    }

    func request(from incoming: Incoming) throws -> SuiteRequest {
        let name = incoming.method ?? "GET"
        guard let method = HTTPRequestMethod(rawValue: name) else { throw ClientError.unsupportedMethod(name) }
        guard let text = incoming.url, let url = URL(string: text) else {
            throw ClientError.badURL(incoming.url ?? "")
        }
        var fields = HTTPHeaderFields()
        for pair in incoming.headers ?? [] where pair.count == 2 {
            try fields.addValue(pair[1], for: pair[0])
        }
        var payload: Data?
        if let body = incoming.body {
            guard let data = Data(base64Encoded: body) else { throw ClientError.badBody }
            payload = data
        }
        return SuiteRequest(target: url, requestMethod: method, fields: fields, payload: payload)
    }

    func answer(_ incoming: Incoming) async -> Outgoing {
        do {
            let suiteRequest = try request(from: incoming)
            let response = try await executor.response(for: suiteRequest, baseURL: suiteRequest.target)
            let head = response.value.head
            return Outgoing(
                id: incoming.id, status: head.statusCode, statusText: head.reasonPhrase,
                headers: head.headerFields.map { [$0.name, $0.value] }, body: response.value.body.base64EncodedString())
        } catch let error as HTTPError {
            // A status that is not 2xx: `send`'s road hands it over as an error with the response's fields (repeated
            // names joined) and body, without its reason phrase.
            let headers = error.headers.sorted { $0.key < $1.key }.map { [$0.key, $0.value] }
            return Outgoing(
                id: incoming.id, status: error.statusCode, statusText: "", headers: headers,
                body: error.data.base64EncodedString())
        } catch {
            return Outgoing(id: incoming.id, error: "\(type(of: error)): \(error)")
        }
    }

    func start(_ incoming: Incoming) {
        // Registered under the lock, so that the task's removal of itself comes after.
        running.withLock { tasks in
            tasks[incoming.id] = Task.detached {
                let outgoing = await self.answer(incoming)
                self.write(outgoing)
                self.running.withLock { _ = $0.removeValue(forKey: incoming.id) }
            }
        }
    }

    func cancel(_ id: Int) {
        running.withLock { $0[id] }?.cancel()
    }

    /// Waits for the requests in flight, then closes the transport's client.
    func finish() async {
        while let next = running.withLock({ $0.first?.value }) {
            await next.value
        }
        try? await ahcTransport?.shutdown()
    }
}

@main
enum CacheTestsClient {
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        guard let transportName = arguments.first, ["urlsession", "ahc"].contains(transportName) else {
            FileHandle.standardError.write(Data("usage: cache-tests-client urlsession|ahc\n".utf8))
            exit(2)
        }
        let client = Client(transportName: transportName)
        let lines = AsyncStream<String> { continuation in
            let reader = Thread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
            reader.start()
        }
        let decoder = JSONDecoder()
        for await line in lines where !line.isEmpty {
            guard let incoming = try? decoder.decode(Incoming.self, from: Data(line.utf8)) else {
                FileHandle.standardError.write(Data("cache-tests-client: \(ClientError.badLine(line))\n".utf8))
                continue
            }
            if incoming.cancel == true {
                client.cancel(incoming.id)
            } else {
                client.start(incoming)
            }
        }
        // Standard input closed: finish what is in flight.
        await client.finish()
    }
}
