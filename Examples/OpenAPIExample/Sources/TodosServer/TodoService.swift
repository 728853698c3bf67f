import HTTPTypes
import OpenAPIRuntime
import TodosAPI

/// The generated `APIProtocol` implemented over a ``ServerLedger``: what a real service would do, reduced to what
/// the example's tests need to see.
package struct TodoService: APIProtocol {
    /// Where the to-dos, tokens and counts live.
    package let ledger: ServerLedger

    /// A service over `ledger`.
    package init(ledger: ServerLedger) {
        self.ledger = ledger
    }

    /// Every to-do.
    package func listTodos(_ input: Operations.ListTodos.Input) async throws -> Operations.ListTodos.Output {
        .ok(.init(body: .json(ledger.todos)))
    }

    /// Stores the to-do and answers 201 with it.
    package func createTodo(_ input: Operations.CreateTodo.Input) async throws -> Operations.CreateTodo.Output {
        switch input.body {
        case .json(let new):
            return .created(.init(body: .json(ledger.addTodo(title: new.title))))
        }
    }

    /// The profile for the current access token; 401 for any other.
    package func getProfile(_ input: Operations.GetProfile.Input) async throws -> Operations.GetProfile.Output {
        guard ledger.admitsProfileRequest(bearer: BearerToken.current) else { return .unauthorized(.init()) }
        return .ok(.init(body: .json(.init(name: "Ada"))))
    }

    /// A new token pair for the current refresh token; 400 for any other.
    package func refreshToken(_ input: Operations.RefreshToken.Input) async throws -> Operations.RefreshToken.Output {
        switch input.body {
        case .json(let request):
            guard let pair = ledger.refresh(using: request.refreshToken) else { return .badRequest(.init()) }
            return .ok(.init(body: .json(pair)))
        }
    }

    /// 503 with `Retry-After: 1` the first time, the report after that.
    package func getReport(_ input: Operations.GetReport.Input) async throws -> Operations.GetReport.Output {
        let attempt = ledger.recordReportAttempt()
        guard attempt > 1 else { return .serviceUnavailable(.init(headers: .init(retryAfter: 1))) }
        return .ok(.init(body: .json(.init(attempts: attempt))))
    }

    /// Reads every part to its end and answers with its name, filename, size and checksum.
    package func uploadAvatar(_ input: Operations.UploadAvatar.Input) async throws -> Operations.UploadAvatar.Output {
        let form: MultipartBody<Operations.UploadAvatar.Input.Body.MultipartFormPayload>
        switch input.body {
        case .multipartForm(let body): form = body
        }
        var received: [Components.Schemas.ReceivedPart] = []
        // Each part's body must be read before the next part is asked for: the form is one stream.
        for try await part in form {
            switch part {
            case .image(let image):
                received.append(try await Self.receipt(name: "image", filename: image.filename, image.payload.body))
            case .caption(let caption):
                received.append(
                    try await Self.receipt(name: "caption", filename: caption.filename, caption.payload.body))
            case .undocumented(let raw):
                received.append(try await Self.receipt(name: raw.name ?? "", filename: raw.filename, raw.body))
            }
        }
        return .ok(.init(body: .json(.init(parts: received))))
    }

    /// Two server-sent events with a wait on the ledger's gate between them.
    package func watchEvents(_ input: Operations.WatchEvents.Input) async throws -> Operations.WatchEvents.Output {
        let events = GatedEvents(gate: ledger.eventGate).asEncodedServerSentEvents()
        return .ok(.init(body: .textEventStream(HTTPBody(events, length: .unknown, iterationBehavior: .single))))
    }

    private static func receipt(name: String, filename: String?, _ body: HTTPBody) async throws
        -> Components.Schemas.ReceivedPart
    {
        var hash = FNV1a()
        var count = 0
        for try await chunk in body {
            count += chunk.count
            hash.add(chunk)
        }
        return .init(name: name, filename: filename, byteCount: count, checksum: hash.hex)
    }
}
