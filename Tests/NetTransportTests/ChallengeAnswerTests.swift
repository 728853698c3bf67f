import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@testable import NetTransport

/// How the URLSession transport answers an HTTP authentication challenge FoundationNetworking cannot handle by
/// default: a table of answers in, answers out.
@Suite("URLSession transport: the default answer to an authentication challenge")
struct ChallengeAnswerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var disposition: URLSession.AuthChallengeDisposition
        var credential: String?
        var stored: String?
        var expected: URLSession.AuthChallengeDisposition
        var expectedCredential: String?

        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "the default uses the stored credential", disposition: .performDefaultHandling, stored: "stored",
            expected: .useCredential, expectedCredential: "stored"),
        Row(
            name: "the default without a stored credential gives up (the 401 is delivered)",
            disposition: .performDefaultHandling, expected: .cancelAuthenticationChallenge),
        Row(
            name: "a credential given passes as it is", disposition: .useCredential, credential: "given",
            stored: "stored", expected: .useCredential, expectedCredential: "given"),
        Row(
            name: "giving up passes as it is", disposition: .cancelAuthenticationChallenge, stored: "stored",
            expected: .cancelAuthenticationChallenge),
        Row(
            name: "rejecting the protection space passes as it is", disposition: .rejectProtectionSpace,
            stored: "stored", expected: .rejectProtectionSpace),
    ]

    static func credential(_ user: String?) -> URLCredential? {
        user.map { URLCredential(user: $0, password: "secret", persistence: .none) }
    }

    @Test("answers", arguments: rows)
    func answer(_ row: Row) {
        let (disposition, credential) = SessionDelegate.resolvedAnswer(
            row.disposition, Self.credential(row.credential), stored: Self.credential(row.stored))
        #expect(disposition == row.expected)
        #expect(credential?.user == row.expectedCredential)
    }
}
