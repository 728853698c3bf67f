import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKitLock
import Testing
@testable import NetKit
import NetKitTesting

/// The facade builds an `HTTPURLResponse` only for the hooks whose signatures ask for one; these tests hold that
/// every such hook still gets one, on every response and not only on the first, whichever of its
/// `decodeResponse` methods a type brings.
@Suite("EKNetwork decoding through the manager: an HTTPURLResponse wherever a signature asks for one")
struct DecodeRoutingTests {
    struct Item: Decodable, Equatable, Sendable {
        let id: Int
    }

    /// What each call of a request's own hook saw.
    final class Calls: Sendable {
        struct Call: Equatable {
            var status: Int
            var total: String?
            var usedGivenDecoder = false
        }

        private let calls = Lock<[Call]>([])
        var all: [Call] { calls.withLock { $0 } }

        func record(_ response: URLResponse, usedGivenDecoder: Bool = false) {
            let http = response as? HTTPURLResponse
            let call = Call(
                status: http?.statusCode ?? -1, total: http?.value(forHTTPHeaderField: "X-Total"),
                usedGivenDecoder: usedGivenDecoder)
            calls.withLock { $0.append(call) }
        }
    }

    /// Its own `decodeResponse(data:response:)`.
    struct OwnPlain: NetworkRequest {
        typealias Response = Item
        let calls: Calls
        var path: String { "/item" }
        var method: HTTPMethod { .get }
        func decodeResponse(data: Data, response: URLResponse) throws -> Item {
            calls.record(response)
            return try JSONDecoder().decode(Item.self, from: data)
        }
    }

    /// Its own `decodeResponse(data:response:decoder:)` only: reached through NetKit's two-argument default too.
    struct OwnWithDecoder: NetworkRequest {
        typealias Response = Item
        let calls: Calls
        let given: JSONDecoder?
        var path: String { "/item" }
        var method: HTTPMethod { .get }
        func decodeResponse(data: Data, response: URLResponse, decoder: JSONDecoder) throws -> Item {
            calls.record(response, usedGivenDecoder: decoder === given)
            return try decoder.decode(Item.self, from: data)
        }
    }

    /// NetKit's JSON decoding, with an `emptyResponseHandler` of its own.
    struct DefaultWithHandler: NetworkRequest {
        typealias Response = Item
        let calls: Calls
        var path: String { "/item" }
        var method: HTTPMethod { .get }
        var emptyResponseHandler: ((HTTPURLResponse) throws -> Item)? {
            { response in
                calls.record(response)
                return Item(id: 0)
            }
        }
    }

    struct PlainEmpty: NetworkRequest {
        typealias Response = EmptyResponse
        var path: String { "/item" }
        var method: HTTPMethod { .delete }
    }

    /// ``EmptyResponse`` with a `decodeResponse` of its own.
    struct OwnEmpty: NetworkRequest {
        typealias Response = EmptyResponse
        let calls: Calls
        var path: String { "/item" }
        var method: HTTPMethod { .delete }
        func decodeResponse(data: Data, response: URLResponse) throws -> EmptyResponse {
            calls.record(response)
            return EmptyResponse()
        }
    }

    struct Status: NetworkRequest {
        typealias Response = StatusCodeResponse
        var path: String { "/item" }
        var method: HTTPMethod { .put }
    }

    let json = StubTransport.Reply.json(#"{"id":7}"#, headers: ["X-Total": "3"])

    @Test("a decodeResponse(data:response:) of the type's own gets the status and fields on every response")
    func ownPlain() async throws {
        let calls = Calls()
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in json })
        for _ in 0..<3 { #expect(try await manager.send(OwnPlain(calls: calls)) == Item(id: 7)) }
        #expect(calls.all == Array(repeating: Calls.Call(status: 200, total: "3"), count: 3))
        #expect(DefaultDecoding.implementations(of: OwnPlain.self).plain == .other)
    }

    @Test(
        "a decodeResponse(data:response:decoder:) of the type's own is called with the request's decoder and the manager's"
    )
    func ownWithDecoder() async throws {
        let calls = Calls()
        let manager = NetworkManager(baseURL: stubBase, transport: StubTransport { _, _ in json })
        for _ in 0..<2 { #expect(try await manager.send(OwnWithDecoder(calls: calls, given: nil)) == Item(id: 7)) }
        let global = JSONDecoder()
        manager.responseDecoderProvider = { global }
        for _ in 0..<2 { #expect(try await manager.send(OwnWithDecoder(calls: calls, given: global)) == Item(id: 7)) }
        #expect(calls.all.map(\.status) == [200, 200, 200, 200])
        #expect(calls.all.map(\.total) == ["3", "3", "3", "3"])
        #expect(calls.all.map(\.usedGivenDecoder) == [false, false, true, true])
        let known = DefaultDecoding.implementations(of: OwnWithDecoder.self)
        #expect(known.plain == .json)
        #expect(known.withDecoder == .other)
    }

    @Test(
        "NetKit's own JSON decoding is recognised, and an empty body still reaches emptyResponseHandler with the response"
    )
    func defaultDecoding() async throws {
        let calls = Calls()
        let stub = StubTransport { _, index in index < 2 ? json : .status(200, headers: ["X-Total": "9"]) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        #expect(try await manager.send(DefaultWithHandler(calls: calls)) == Item(id: 7))
        let known = DefaultDecoding.implementations(of: DefaultWithHandler.self)
        #expect(known.plain == .json)
        #expect(known.withDecoder == .json)
        #expect(try await manager.send(DefaultWithHandler(calls: calls)) == Item(id: 7))
        #expect(calls.all.isEmpty)
        #expect(try await manager.send(DefaultWithHandler(calls: calls)) == Item(id: 0))
        #expect(try await manager.send(DefaultWithHandler(calls: calls)) == Item(id: 0))
        #expect(calls.all == Array(repeating: Calls.Call(status: 200, total: "9"), count: 2))
    }

    @Test("EmptyResponse: NetKit's own decoding is recognised; a decodeResponse of the type's own is called every time")
    func emptyResponse() async throws {
        let calls = Calls()
        let manager = NetworkManager(
            baseURL: stubBase, transport: StubTransport { _, _ in .status(204, headers: ["X-Total": "1"]) })
        for _ in 0..<2 {
            #expect(try await manager.send(PlainEmpty()) == EmptyResponse())
            #expect(try await manager.send(OwnEmpty(calls: calls)) == EmptyResponse())
        }
        #expect(DefaultDecoding.implementations(of: PlainEmpty.self).plain == .empty)
        #expect(DefaultDecoding.implementations(of: OwnEmpty.self).plain == .other)
        #expect(calls.all == Array(repeating: Calls.Call(status: 204, total: "1"), count: 2))
    }

    @Test("StatusCodeResponse copies the status and fields of every response")
    func statusCodeResponse() async throws {
        let stub = StubTransport { _, index in .status(200 + index, headers: ["X-Total": "\(index)"]) }
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        for index in 0..<3 {
            let value = try await manager.send(Status())
            #expect(value.statusCode == 200 + index)
            #expect(value.headers["X-Total"] == "\(index)")
        }
    }

    @Test("a response without a URL is refused as EKNetwork's decoding refuses it, also once the type is known")
    func noURL() throws {
        struct Learner: NetworkRequest {
            typealias Response = Item
            var path: String { "/item" }
            var method: HTTPMethod { .get }
        }
        let body = Data(#"{"id":1}"#.utf8)
        let withoutURL = ReceivedResponse(head: HTTPResponseHead(statusCode: 200), body: body)
        #expect(throws: NetworkError.invalidResponse) { try Learner().decode(withoutURL, decoder: nil) }
        let withURL = ReceivedResponse(head: HTTPResponseHead(statusCode: 200), body: body, url: stubBase)
        #expect(try Learner().decode(withURL, decoder: nil) == Item(id: 1))
        #expect(DefaultDecoding.implementations(of: Learner.self).plain == .json)
        #expect(throws: NetworkError.invalidResponse) { try Learner().decode(withoutURL, decoder: nil) }
        #expect(throws: NetworkError.invalidResponse) { try Learner().decode(withoutURL, decoder: JSONDecoder()) }
    }
}
