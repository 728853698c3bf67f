#if canImport(Testing)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NetCore
import Testing

/// A Swift Testing trait that gives every test a HAR fixture of its own, named after it, as ``HARFixture/current``.
///
/// ```swift
/// @Suite(.harFixtures(in: fixtures, mode: .recordOnce, live: { URLSessionTransport() }))
/// struct UserAPITests {
///     @Test func fetchesAUser() async throws {
///         let transport = try #require(HARFixture.current)
///         let manager = NetworkManager(baseURL: api, transport: transport)
///         …
///     }
/// }
/// ```
///
/// The file of a test is `<folder>/<suite>/<test>.har` (`UserAPITests/fetchesAUser.har`); the cases of a
/// parameterized test share their test's file. Each test has its own transport and file, held in a task-local value,
/// so tests run in parallel safely. In a replay, a request the fixture does not answer fails the test, even when the
/// code under test catches the error; a recording writes the file when the test ends.
public struct HARFixtureTrait: TestTrait, SuiteTrait, TestScoping {
    /// The folder of the fixtures.
    let directory: URL
    /// The fixtures' mode (`NETKIT_HAR_MODE` overrides it).
    let mode: HARMode
    /// What recordings hide.
    let redaction: HARRedaction
    /// What replayed requests must agree with recorded ones on.
    let matchers: [HARMatcher]
    /// Whether a replay that leaves a recorded exchange unused fails the test: the code no longer makes a request
    /// the fixture holds.
    let expectsEveryExchange: Bool
    /// Makes the transport to record from.
    let live: (@Sendable () -> any HTTPTransport)?

    /// Applies to every test of a suite it is given to.
    public var isRecursive: Bool { true }

    /// One scope for each test function (its parameterized cases included), none for a suite itself.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase != nil ? nil : self
    }

    /// Runs the test with its fixture's transport as ``HARFixture/current``.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let fixture = HARFixture(
            directory.appendingPathComponent(Self.relativePath(of: test)), mode: mode, redaction: redaction,
            matchers: matchers)
        let transport = try fixture.makeTransport(live: live)
        try await HARFixture.$scoped.withValue(transport) { try await function() }
        try await transport.finish()
        if case .replaying(let replay) = transport.role {
            let fixture = transport.fileURL.lastPathComponent
            if expectsEveryExchange {
                for entry in replay.unusedEntries {
                    Issue.record(
                        "\(entry.request.method) \(entry.request.url), recorded in \(fixture), was never requested.",
                        sourceLocation: test.sourceLocation)
                }
            }
            for request in replay.unmatchedRequests {
                let target = LogRedaction.target(request.head)
                Issue.record(
                    "\(request.method.rawValue) \(target) matched no exchange in \(fixture).",
                    sourceLocation: test.sourceLocation)
            }
        }
    }

    /// `<suite>/<test>.har`, each name kept to letters, digits, `-`, `_` and `.`.
    static func relativePath(of test: Test) -> String {
        let names = test.id.nameComponents.map { name in
            var name = name
            if name.hasSuffix("()") { name.removeLast(2) }
            return String(
                name.unicodeScalars.map { scalar in
                    scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "-_.".unicodeScalars
                            .contains(scalar)
                        ? Character(scalar) : "-"
                })
        }
        return names.joined(separator: "/") + ".har"
    }
}

extension Trait where Self == HARFixtureTrait {
    /// Every test gets a HAR fixture of its own in `directory` (see ``HARFixtureTrait``).
    /// - Parameters:
    ///   - directory: The folder of the fixtures, usually beside the test file
    ///     (`URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Fixtures")`).
    ///   - mode: Replay (the default), record once, or record again; `NETKIT_HAR_MODE` overrides it.
    ///   - redaction: What recordings hide.
    ///   - matchers: What replayed requests must agree with recorded ones on.
    ///   - expectsEveryExchange: Whether a replay that leaves a recorded exchange unused fails the test.
    ///   - live: Makes the transport to record from; without it, a fixture can only replay.
    public static func harFixtures(
        in directory: URL,
        mode: HARMode = .replay,
        redaction: HARRedaction = .standard,
        matchers: [HARMatcher] = HARMatcher.standard,
        expectsEveryExchange: Bool = false,
        live: (@Sendable () -> any HTTPTransport)? = nil
    ) -> Self {
        HARFixtureTrait(
            directory: directory, mode: mode, redaction: redaction, matchers: matchers,
            expectsEveryExchange: expectsEveryExchange, live: live)
    }
}
#endif
