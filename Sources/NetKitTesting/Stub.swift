/// One stub of a ``StubTransport``: the conditions a request must meet (all of them) and how to answer it.
///
/// ```swift
/// stub.add(Stub([.method(.post), .path("/v1/users")], replies: [.status(503), .json(#"{"id":1,"name":"ann"}"#, status: 201)]))
/// stub.add(Stub([.header("Authorization")]) { request in .json(#"{"echo":"\(request.body.count) bytes"}"#) })
/// ```
public struct Stub: Sendable {
    /// What a request must meet, all of it (no condition: every request).
    public let conditions: [StubCondition]
    /// The reply to a matching request, given how many requests the stub answered before it.
    private let respond: @Sendable (StubTransport.RecordedRequest, Int) async throws -> StubTransport.Reply

    /// A stub that answers every matching request with `reply`.
    public init(_ conditions: [StubCondition], reply: StubTransport.Reply) {
        self.conditions = conditions
        self.respond = { _, _ in reply }
    }

    /// A stub that answers matching requests with `replies` in order, then with the last one again.
    /// - Precondition: `replies` is not empty.
    public init(_ conditions: [StubCondition], replies: [StubTransport.Reply]) {
        precondition(!replies.isEmpty, "A stub needs at least one reply.")
        self.conditions = conditions
        self.respond = { _, count in replies[min(count, replies.count - 1)] }
    }

    /// A stub that computes the reply to each matching request (or throws, as a transport would).
    public init(
        _ conditions: [StubCondition],
        respond: @escaping @Sendable (StubTransport.RecordedRequest) async throws -> StubTransport.Reply
    ) {
        self.conditions = conditions
        self.respond = { request, _ in try await respond(request) }
    }

    /// Whether `request` meets every condition.
    public func matches(_ request: StubTransport.RecordedRequest) -> Bool {
        conditions.allSatisfy { $0.matches(request) }
    }

    /// The reply to the stub's `count`-th matching request (0-based).
    func reply(to request: StubTransport.RecordedRequest, _ count: Int) async throws -> StubTransport.Reply {
        try await respond(request, count)
    }
}
