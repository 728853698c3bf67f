import Foundation
import NetKitTesting

/// Every credential the Todo API replay suite sends or receives, in one place: long strings that occur nowhere else,
/// so that ``FixtureSecretsTests`` can search every recorded fixture for them byte by byte.
///
/// The recorder replaces them with ``HARRedaction/placeholder`` before a fixture is written; a replay therefore hands
/// the client `REDACTED` wherever the server answered with one of them (the tokens of a login or a refresh).
enum TodoSecrets {
    /// The user who signs in; not a secret.
    static let username = "ann"
    /// Ann's password, sent in the login's JSON body and in the OAuth password grant's form.
    static let password = "pw-Kd4mZr8-Wn3cTf6-Lp5sYe1-7Hq2xVb9"
    /// The access token the API accepts.
    static let accessToken = "at-live-4f9c2a7e1b5d83f0a6c9e2b7d4f1a8c5e3b9d7f2"
    /// An access token the API no longer accepts (401).
    static let expiredAccessToken = "at-expired-2b6e9d1f4a7c03e8b5d2f9a6c3e0b7d4a1c8e5f9"
    /// The access token a refresh hands out.
    static let refreshedAccessToken = "at-fresh-9c4f1a8e3d6b20f7c5a9e2d8b1f4a7c3e6d0b5a2"
    /// The refresh token a login hands out and a refresh sends.
    static let refreshToken = "rt-live-5e8b2d7f1c4a93e6b0d5f8a2c7e1b4d9f6a3c0e8"
    /// A refresh token the API revoked (a refresh with it fails).
    static let revokedRefreshToken = "rt-revoked-8d1f4a7c0e3b6d9f2a5c8e1b4d7f0a3c6e9b2d5f"
    /// The integration's API key, sent in `X-API-Key` and as the query item `api_key`.
    static let apiKey = "sk-live-4f9c2a7e1b5d83f0a6c9e2b7d4f1a8c5-todo"
    /// The OAuth client's secret, sent in the password grant's form.
    static let clientSecret = "cs-live-0b7e4d1a8f5c2e9b6d3a0f7c4e1b8d5a2f9c6e3b"
    /// The session cookie's value the API sets after a sign-in.
    static let sessionCookie = "sess-live-8a3f6c1e9b4d72a5f0c8e3b6d1a9f4c7e2b5d8a0"

    /// `Authorization: Basic`'s credentials, `ann:<password>` in base64: a secret in another spelling.
    static var basicCredentials: String { Data("\(username):\(password)".utf8).base64EncodedString() }

    /// Every secret with a name for messages: what no fixture may contain.
    static var all: [(name: String, value: String)] {
        [
            ("password", password), ("access token", accessToken), ("expired access token", expiredAccessToken),
            ("refreshed access token", refreshedAccessToken), ("refresh token", refreshToken),
            ("revoked refresh token", revokedRefreshToken), ("API key", apiKey), ("client secret", clientSecret),
            ("session cookie", sessionCookie), ("Basic credentials", basicCredentials),
        ]
    }

    /// What the suite's recordings hide besides the standard credentials: the API key's query item, declared here
    /// too so that the fixture never depends on its name looking secret.
    static let redaction = HARRedaction(queryItems: ["api_key"])
}
