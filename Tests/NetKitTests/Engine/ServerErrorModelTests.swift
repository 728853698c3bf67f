import Foundation
import Testing
import NetKit
import NetKitTesting

/// Server error models (NetworkKit's `errorProcessorType`): a failed body that decodes as the named type is a
/// `ServerError`; one that does not is an `HTTPError`, never a `DecodingError`.
@Suite("Server error models")
struct ServerErrorModelTests {
    struct DataError: Decodable, Error, Equatable {
        let code: String
        let message: String
    }

    struct OtherError: Decodable, Error, Equatable {
        let reason: String
    }

    struct LocalizedModel: Decodable, LocalizedError {
        let message: String
        var errorDescription: String? { message }
    }

    struct SignUp: Endpoint {
        typealias Response = User
        var model: (any (Decodable & Error).Type)? = DataError.self
        var onSuccess = false
        var decoder: ((Data) -> (any Error)?)?
        var path: String { "/sign-up" }
        var method: HTTPMethod { .post }
        var errorModel: (any (Decodable & Error).Type)? { model }
        var decodesErrorModelOnSuccess: Bool { onSuccess }
        var errorDecoder: ((Data) -> (any Error)?)? { decoder }
    }

    let dataError = #"{"code":"E42","message":"email taken"}"#

    func executor(_ replies: [StubTransport.Reply]) -> (RequestExecutor, StubTransport) {
        let stub = StubTransport(replies: replies)
        return (RequestExecutor(transport: stub), stub)
    }

    @Test("a non-2xx body that decodes as the model is a ServerError with the status, the model and the headers")
    func decodes() async throws {
        let (engine, _) = executor([.json(dataError, status: 422, headers: ["X-Request-Id": "r1"])])
        let error = try #require(
            await #expect(throws: ServerError.self) { try await engine.send(SignUp(), baseURL: stubBase) })
        #expect(error.statusCode == 422)
        #expect(error.model(as: DataError.self) == DataError(code: "E42", message: "email taken"))
        #expect(error.model(as: OtherError.self) == nil)
        #expect(error.value(forHeader: "x-request-id") == "r1")
    }

    @Test("a non-2xx body that does not decode as the model is an HTTPError, never a DecodingError")
    func fallsBack() async throws {
        for reply in [
            StubTransport.Reply.json(#"{"unexpected":true}"#, status: 500), .data(Data("<html>".utf8), status: 502),
            .status(404),
        ] {
            let (engine, _) = executor([reply])
            let error = try #require(
                await #expect(throws: HTTPError.self) { try await engine.send(SignUp(), baseURL: stubBase) })
            #expect(error.statusCode == reply.status)
        }
    }

    @Test("an errorDecoder that returns an error wins; one that returns nil leaves it to the model")
    func errorDecoderFirst() async throws {
        let (engine, _) = executor([.json(dataError, status: 400), .json(dataError, status: 400)])
        let own = SignUp(decoder: { _ in OtherError(reason: "mine") })
        await #expect(throws: OtherError(reason: "mine")) { try await engine.send(own, baseURL: stubBase) }
        let declining = SignUp(decoder: { _ in nil })
        await #expect(throws: ServerError.self) { try await engine.send(declining, baseURL: stubBase) }
    }

    @Test("the engine's model serves requests without one; a request's own model wins")
    func engineModel() async throws {
        var (engine, _) = executor([
            .json(#"{"reason":"down"}"#, status: 503), .json(#"{"reason":"down"}"#, status: 503),
        ])
        engine.errorModel = OtherError.self
        let fromEngine = try #require(
            await #expect(throws: ServerError.self) { try await engine.send(SignUp(model: nil), baseURL: stubBase) })
        #expect(fromEngine.model(as: OtherError.self) == OtherError(reason: "down"))
        // The request's DataError does not fit this body: the engine's model is not tried instead.
        await #expect(throws: HTTPError.self) { try await engine.send(SignUp(), baseURL: stubBase) }
    }

    @Test("a 401 stays NetworkError.unauthorized, whatever the model")
    func unauthorized() async throws {
        let (engine, _) = executor([.json(dataError, status: 401)])
        await #expect(throws: NetworkError.unauthorized) { try await engine.send(SignUp(), baseURL: stubBase) }
    }

    @Test("asked for it, a 2xx body that decodes as the model is a ServerError before the success model is tried")
    func onSuccess() async throws {
        let (engine, _) = executor([.json(dataError), .json(#"{"id":1,"name":"ann"}"#)])
        let error = try #require(
            await #expect(throws: ServerError.self) {
                try await engine.send(SignUp(onSuccess: true), baseURL: stubBase)
            })
        #expect(error.statusCode == 200)
        #expect(error.model(as: DataError.self)?.code == "E42")
        #expect(try await engine.send(SignUp(onSuccess: true), baseURL: stubBase) == User(id: 1, name: "ann"))
    }

    @Test("not asked for it, a 2xx body is only the success model (an error object there is a DecodingError)")
    func notOnSuccess() async throws {
        let (engine, _) = executor([.json(dataError)])
        await #expect(throws: DecodingError.self) { try await engine.send(SignUp(), baseURL: stubBase) }
    }

    @Test("the engine can ask for the 2xx check for every request")
    func engineOnSuccess() async throws {
        var (engine, _) = executor([.json(dataError)])
        engine.decodesErrorModelOnSuccess = true
        await #expect(throws: ServerError.self) { try await engine.send(SignUp(), baseURL: stubBase) }
    }

    @Test("the description names the status and the model type, no header values and no model fields")
    func description() async throws {
        let (engine, _) = executor([.json(dataError, status: 409, headers: ["Set-Cookie": "session=secret-cookie"])])
        let error = try #require(
            await #expect(throws: ServerError.self) { try await engine.send(SignUp(), baseURL: stubBase) })
        #expect(error.description == "HTTP 409: server error DataError")
        #expect(!"\(error)".contains("secret-cookie"))
        #expect(!"\(error)".contains("email taken"))
        #expect(error.localizedDescription == "Request failed with status code 409")
        let localized = ServerError(statusCode: 400, model: LocalizedModel(message: "Try again"), headers: [:])
        #expect(localized.localizedDescription == "Try again")
    }

    @Test("the manager's errorModel and decodesErrorModelOnSuccess reach its engine")
    func manager() async throws {
        struct Plain: NetworkRequest {
            typealias Response = User
            var path: String { "/users/1" }
            var method: HTTPMethod { .get }
        }
        let stub = StubTransport(replies: [.json(#"{"reason":"gone"}"#, status: 410), .json(#"{"reason":"soft"}"#)])
        let manager = NetworkManager(baseURL: stubBase, transport: stub)
        manager.errorModel = OtherError.self
        let failed = try #require(await #expect(throws: ServerError.self) { try await manager.send(Plain()) })
        #expect(failed.statusCode == 410)
        manager.decodesErrorModelOnSuccess = true
        let soft = try #require(await #expect(throws: ServerError.self) { try await manager.send(Plain()) })
        #expect(soft.model(as: OtherError.self) == OtherError(reason: "soft"))
        #expect(manager.decodesErrorModelOnSuccess)
    }

    @Test("a transient status is still retried when its body decodes as the model; the last one is thrown")
    func retried() async throws {
        struct Fetch: NetworkRequest {
            typealias Response = User
            var path: String { "/users/1" }
            var method: HTTPMethod { .get }
            var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: 1, delay: 0) }
            var errorModel: (any (Decodable & Error).Type)? { OtherError.self }
        }
        let (engine, stub) = executor([
            .json(#"{"reason":"busy"}"#, status: 503), .json(#"{"reason":"still"}"#, status: 503),
        ])
        let error = try #require(
            await #expect(throws: ServerError.self) { try await engine.send(Fetch(), baseURL: stubBase) })
        #expect(error.model(as: OtherError.self)?.reason == "still")
        #expect(stub.requestCount == 2)
    }
}
