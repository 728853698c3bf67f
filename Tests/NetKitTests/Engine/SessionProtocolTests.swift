import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetKitLock
import Testing
import NetKit

@Suite("EKNetwork's session: argument")
struct SessionProtocolTests {
    final class MockSession: URLSessionProtocol {
        let seen = Lock<[URLRequest]>([])
        func data(for request: URLRequest) async throws -> (Data, URLResponse) {
            seen.withLock { $0.append(request) }
            let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: nil)!
            return (Data(#"{"id":3,"name":"mock"}"#.utf8), response)
        }
    }

    @Test("a mock session receives the built request, body included")
    func mockSession() async throws {
        let session = MockSession()
        let manager = NetworkManager(baseURL: stubBase, session: session)
        let user = try await manager.send(CreateUser(name: "zoe"), accessToken: { "t" })
        #expect(user.name == "mock")
        let request = try #require(session.seen.withLock { $0.first })
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        #expect(request.httpBody == Data(#"{"name":"zoe"}"#.utf8))
    }

    @Test("a session that answers with something other than HTTP is invalidResponse")
    func nonHTTP() async throws {
        final class FileSession: URLSessionProtocol {
            func data(for request: URLRequest) async throws -> (Data, URLResponse) {
                (Data(), URLResponse(url: request.url!, mimeType: nil, expectedContentLength: 0, textEncodingName: nil))
            }
        }
        await #expect(throws: NetworkError.invalidResponse) {
            try await NetworkManager(baseURL: stubBase, session: FileSession()).send(DeleteUser(), accessToken: nil)
        }
    }
}
