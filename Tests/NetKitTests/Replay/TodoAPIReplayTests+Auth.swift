import Foundation
import NetKit
import NetKitTesting
import Testing

extension TodoAPIReplayTests {
    /// Credentials of every kind. Each is a secret of ``TodoSecrets``: the client sends it for real (the server
    /// checked it while the fixture recorded), and the fixture holds `REDACTED` in its place.
    @Suite struct Auth {
        @Test("a login POSTs the password as JSON and decodes the tokens (redacted in the fixture)")
        func logsInWithPassword() async throws {
            let client = try todoClient()
            let tokens = try await client.manager.send(
                TodoAPI.Login(username: TodoSecrets.username, password: TodoSecrets.password), accessToken: nil)
            #expect(tokens.accessToken == client.received(TodoSecrets.accessToken))
            #expect(tokens.refreshToken == client.received(TodoSecrets.refreshToken))
            #expect(tokens.tokenType == "Bearer" && tokens.expiresIn == 3600)
            let sent = try #require(client.sent.all.first)
            #expect(sent.header("Authorization") == nil)
            let body = try JSONDecoder().decode([String: String].self, from: try #require(sent.body))
            #expect(body == ["username": TodoSecrets.username, "password": TodoSecrets.password])
        }

        @Test("a 401 refreshes the token once and retries with the new one")
        func refreshesTokenOn401AndRetries() async throws {
            let client = try todoClient(accessToken: TodoSecrets.expiredAccessToken, refreshes: true)
            let profile = try await client.send(TodoAPI.GetProfile())
            #expect(profile == TodoAPI.Profile(name: "Ann", email: "ann@example.com"))
            #expect(client.session.refreshes == 1)
            #expect(client.session.accessToken == client.received(TodoSecrets.refreshedAccessToken))
            #expect(client.sent.all.map(\.path) == ["/me", "/auth/refresh", "/me"])
            #expect(
                client.sent.to("/me").map { $0.header("Authorization") } == [
                    "Bearer \(TodoSecrets.expiredAccessToken)", "Bearer \(client.session.accessToken)",
                ])
            let refresh = try #require(client.sent.to("/auth/refresh").first)
            #expect(refresh.header("Authorization") == nil)
            #expect(
                try JSONDecoder().decode([String: String].self, from: try #require(refresh.body))
                    == ["refresh_token": TodoSecrets.refreshToken])
        }

        @Test("a refresh the server refuses fails the request with the refresh's error")
        func failedRefreshSurfacesItsError() async throws {
            let client = try todoClient(accessToken: TodoSecrets.expiredAccessToken, refreshes: true)
            client.session.refreshToken = TodoSecrets.revokedRefreshToken
            let error = try await #require(throws: HTTPError.self) {
                try await client.send(TodoAPI.GetProfile())
            }
            #expect(error.statusCode == 400)
            #expect(try JSONDecoder().decode(TodoAPI.Problem.self, from: error.data).code == "invalid_grant")
            #expect(client.sent.all.map(\.path) == ["/me", "/auth/refresh"])
            #expect(client.session.accessToken == TodoSecrets.expiredAccessToken)
        }

        @Test("TokenPlugin sends the API key in X-API-Key")
        func sendsAPIKeyHeader() async throws {
            let client = try todoClient {
                $0.plugins = [TokenPlugin(.header(name: "X-API-Key")) { TodoSecrets.apiKey }]
            }
            let integrations = try await client.manager.send(TodoAPI.Integrations(), accessToken: nil)
            #expect(integrations == ["calendar", "mail"])
            #expect(client.sent.all.map { $0.header("X-API-Key") } == [TodoSecrets.apiKey])
        }

        @Test("TokenPlugin sends the API key as the query item api_key")
        func sendsAPIKeyQueryItem() async throws {
            let client = try todoClient {
                $0.plugins = [TokenPlugin(.queryItem(name: "api_key")) { TodoSecrets.apiKey }]
            }
            let todos = try await client.manager.send(TodoAPI.PublicTodos(), accessToken: nil)
            #expect(todos.map(\.id) == [1])
            #expect(client.sent.all.map(\.query) == ["api_key=\(TodoSecrets.apiKey)"])
        }

        @Test("BasicAuthenticationPlugin sends the user and password as Basic credentials")
        func sendsBasicCredentials() async throws {
            let basic = try BasicAuthenticationPlugin(username: TodoSecrets.username, password: TodoSecrets.password)
            let client = try todoClient { $0.plugins = [basic] }
            let export = try await client.manager.send(TodoAPI.AdminExport(), accessToken: nil)
            #expect(export == TodoAPI.ExportSummary(exported: 3, format: "csv"))
            #expect(client.sent.all.map { $0.header("Authorization") } == ["Basic \(TodoSecrets.basicCredentials)"])
        }

        @Test("OAuth's password grant goes as a form with the client secret")
        func exchangesPasswordGrantForm() async throws {
            let client = try todoClient()
            let tokens = try await client.manager.send(TodoAPI.PasswordGrant(), accessToken: nil)
            #expect(tokens.accessToken == client.received(TodoSecrets.accessToken))
            let sent = try #require(client.sent.all.first)
            #expect(sent.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true)
            let form = String(decoding: try #require(sent.body), as: UTF8.self)
            #expect(form.contains("client_secret=\(TodoSecrets.clientSecret)"))
            #expect(form.contains("password=\(TodoSecrets.password)"))
        }

        @Test("the cookie jar keeps the session cookie a sign-in sets and sends it back")
        func sendsSessionCookieBack() async throws {
            let jar = CookieJar()
            let client = try todoClient { $0.cookieJar = jar }
            _ = try await client.manager.send(TodoAPI.StartSession(), accessToken: nil)
            let user = try await client.manager.send(TodoAPI.CurrentSession(), accessToken: nil)
            #expect(user == TodoAPI.SessionUser(user: TodoSecrets.username))
            let cookies = jar.cookies(for: client.baseURL.appendingPathComponent("me"))
            #expect(cookies.map(\.name) == ["session", "theme"])
            #expect(cookies.first?.value == client.received(TodoSecrets.sessionCookie))
            #expect(cookies.first?.isHTTPOnly == true)
            #expect(client.sent.to("/auth/session").first?.header("Cookie") == nil)
            #expect(
                client.sent.to("/me/session").first?.header("Cookie")
                    == cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; "))
        }

        @Test("the bearer token goes to the API's origin only, never to the file host")
        func keepsCredentialsToTheirOrigin() async throws {
            let client = try todoClient()
            let report = try await client.send(TodoAPI.FileReport(host: client.fileHost))
            #expect(report == "id,done\n1,true\n")
            let sent = try #require(client.sent.all.first)
            #expect(sent.head.host == client.fileHost.host())
            #expect(sent.header("Authorization") == nil)
        }
    }
}
