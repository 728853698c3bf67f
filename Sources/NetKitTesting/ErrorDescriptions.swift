#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// NetKitTesting's errors read the same through `localizedDescription` as through `description`.

extension StubTransport.NoMatchingStub: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension StubTransport.ScriptExhausted: CustomStringConvertible, LocalizedError {
    /// A sentence naming the failure: the script ran out of replies.
    public var description: String {
        "The stub's script ran out: it had \(replies) repl\(replies == 1 ? "y" : "ies") and another request came."
    }

    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension TransportConformanceFailure: LocalizedError {
    /// The same line as `description`.
    public var errorDescription: String? { description }
}

extension TransportConformanceFailures: LocalizedError {
    /// The same lines as `description`: one for the count, one per failure.
    public var errorDescription: String? { description }
}
