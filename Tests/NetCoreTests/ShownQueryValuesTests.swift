import Testing

@testable import NetCore

/// A debug log that shows the query values a user chose, and nothing secret.
@Suite("Query values shown by name in logs")
struct ShownQueryValuesTests {
    @Test("only the named values are shown; a secret-looking name or a declared credential stays hidden")
    func shown() {
        let rules = RedactionRules(queryValues: .shown(["page", "SORT", "api_key", "sig"]))
            .including(CredentialFields(queryItemNames: ["sig"]))
        #expect(
            LogRedaction.redactedQuery("page=2&sort=name&q=private&api_key=k1&sig=s1", rules: rules)
                == "page=2&sort=name&q=…&api_key=…&sig=…")
        #expect(LogRedaction.redactedQuery("page=2&q=x", rules: .standard) == "page=…&q=…")
    }
}
