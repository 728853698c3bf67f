import Foundation
import NetKitTesting
import Testing

/// The committed fixtures of ``TodoAPIReplayTests`` hold none of the credentials the suite used (``TodoSecrets``):
/// every file under `Fixtures/` is searched as bytes, and every body a HAR holds is searched again decoded (a body
/// that is not UTF-8 is stored as base64, which a search of the file's bytes would miss).
@Suite struct FixtureSecretsTests {
    /// The fewest fixtures the replay suite records: one per test.
    static let expectedFixtures = 50

    @Test("the replay suite's fixtures are there, one HAR per test, each with exchanges")
    func fixturesExist() throws {
        let fixtures = try Self.files().filter { $0.pathExtension == "har" }
        #expect(fixtures.count >= Self.expectedFixtures)
        for fixture in fixtures {
            let archive = try HARArchive(contentsOf: fixture)
            #expect(!archive.log.entries.isEmpty, "\(Self.name(of: fixture)) records no exchange")
        }
    }

    @Test("no fixture file contains any credential the suite used")
    func noFixtureHoldsACredential() throws {
        let files = try Self.files()
        try #require(!files.isEmpty)
        for file in files {
            let data = try Data(contentsOf: file)
            for secret in Self.secrets(in: data) {
                Issue.record("\(Self.name(of: file)) contains the \(secret)")
            }
        }
    }

    @Test("no body a fixture holds contains a credential once decoded")
    func noDecodedBodyHoldsACredential() throws {
        for fixture in try Self.files() where fixture.pathExtension == "har" {
            let archive = try HARArchive(contentsOf: fixture)
            for (index, entry) in archive.log.entries.enumerated() {
                let bodies = [entry.request.postData?.inlineData, entry.response.content.inlineData]
                for body in bodies.compactMap({ $0 }) {
                    for secret in Self.secrets(in: body) {
                        Issue.record("\(Self.name(of: fixture)), entry \(index), has a body with the \(secret)")
                    }
                }
            }
        }
    }

    @Test("where the server sent a credential, the fixture holds the placeholder")
    func credentialsAreReplacedByThePlaceholder() throws {
        let login = try Self.archive("Auth/logsInWithPassword")
        let exchange = try #require(login.log.entries.first)
        let sent = try JSONSerialization.jsonObject(with: try #require(exchange.request.postData?.inlineData))
        #expect((sent as? [String: String])?["password"] == HARRedaction.placeholder)
        #expect((sent as? [String: String])?["username"] == TodoSecrets.username)
        let received = try JSONSerialization.jsonObject(with: try #require(exchange.response.content.inlineData))
        #expect((received as? [String: Any])?["access_token"] as? String == HARRedaction.placeholder)
        #expect((received as? [String: Any])?["refresh_token"] as? String == HARRedaction.placeholder)

        let session = try Self.archive("Auth/sendsSessionCookieBack")
        let setCookies = session.log.entries.first?.response.headers.filter { $0.name.lowercased() == "set-cookie" }
        #expect(setCookies?.first?.value.hasPrefix("session=\(HARRedaction.placeholder)") == true)

        let apiKey = try Self.archive("Auth/sendsAPIKeyQueryItem")
        #expect(apiKey.log.entries.first?.request.queryString.map(\.value) == [HARRedaction.placeholder])
    }

    @Test("the search finds a credential planted in a fixture's bytes")
    func searchFindsAPlantedCredential() {
        let planted = Data(#"{"headers":[{"name":"X-Trace","value":"\#(TodoSecrets.apiKey)"}]}"#.utf8)
        #expect(Self.secrets(in: planted) == ["API key"])
        #expect(Self.secrets(in: Data(#"{"value":"REDACTED"}"#.utf8)).isEmpty)
    }

    /// The names of the secrets `data` contains.
    static func secrets(in data: Data) -> [String] {
        TodoSecrets.all.filter { data.firstRange(of: Data($0.value.utf8)) != nil }.map(\.name)
    }

    /// Every regular file under the fixtures' folder, at any depth.
    static func files() throws -> [URL] {
        let folder = TodoFixtures.directory
        guard
            let enumerator = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [])
        else { throw CocoaError(.fileReadNoSuchFile) }
        var files: [URL] = []
        for case let url as URL in enumerator
        where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The fixture of the replay suite's test `name` (`Auth/logsInWithPassword`).
    static func archive(_ name: String) throws -> HARArchive {
        try HARArchive(
            contentsOf: TodoFixtures.directory.appendingPathComponent("TodoAPIReplayTests/\(name).har"))
    }

    /// `file`'s path under the fixtures' folder.
    static func name(of file: URL) -> String {
        let folder = TodoFixtures.directory.standardizedFileURL.path
        let path = file.standardizedFileURL.path
        return path.hasPrefix(folder) ? String(path.dropFirst(folder.count + 1)) : path
    }
}
