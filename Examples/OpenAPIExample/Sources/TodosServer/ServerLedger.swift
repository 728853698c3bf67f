import Synchronization
import TodosAPI

/// What the server holds and what it has seen, shared by every handler and read by the tests: the to-dos, the
/// tokens, and counts of refreshes, report attempts and profile requests.
package final class ServerLedger: Sendable {
    /// What the server has counted so far.
    package struct Counts: Sendable, Equatable {
        /// Calls to `refreshToken`, successful or not.
        package var refreshes = 0
        /// Calls to `getReport`.
        package var reportAttempts = 0
        /// Calls to `getProfile`, answered or rejected.
        package var profileRequests = 0
        /// Calls to `getProfile` rejected with 401.
        package var rejectedProfileRequests = 0
    }

    private struct State {
        var todos: [Components.Schemas.Todo] = []
        var accessToken: String
        var refreshToken: String
        var issuedTokens = 0
        var counts = Counts()
    }

    private let state: Mutex<State>

    /// Holds the event stream between its two events until a test opens it.
    package let eventGate = EventGate()

    /// A ledger with no to-dos, accepting `accessToken` for `/me` and `refreshToken` for `/token`.
    package init(accessToken: String = "access-0", refreshToken: String = "refresh-0") {
        state = Mutex(State(accessToken: accessToken, refreshToken: refreshToken))
    }

    /// The counts so far.
    package var counts: Counts { state.withLock { $0.counts } }

    /// The access token `/me` accepts now.
    package var accessToken: String { state.withLock { $0.accessToken } }

    /// The to-dos, oldest first.
    package var todos: [Components.Schemas.Todo] { state.withLock { $0.todos } }

    /// Stores a new, open to-do and returns it with its identifier.
    package func addTodo(title: String) -> Components.Schemas.Todo {
        state.withLock { state in
            let todo = Components.Schemas.Todo(id: state.todos.count + 1, title: title, done: false)
            state.todos.append(todo)
            return todo
        }
    }

    /// Counts a profile request and says whether `bearer` is the current access token.
    package func admitsProfileRequest(bearer: String?) -> Bool {
        state.withLock { state in
            state.counts.profileRequests += 1
            guard bearer == state.accessToken else {
                state.counts.rejectedProfileRequests += 1
                return false
            }
            return true
        }
    }

    /// Counts a refresh and, for the current refresh token, issues a new pair: both old tokens stop working, so a
    /// second refresh with the same refresh token fails as it would on a real server that rotates them.
    package func refresh(using refreshToken: String) -> Components.Schemas.TokenPair? {
        state.withLock { state in
            state.counts.refreshes += 1
            guard refreshToken == state.refreshToken else { return nil }
            state.issuedTokens += 1
            state.accessToken = "access-\(state.issuedTokens)"
            state.refreshToken = "refresh-\(state.issuedTokens)"
            return Components.Schemas.TokenPair(accessToken: state.accessToken, refreshToken: state.refreshToken)
        }
    }

    /// Counts a report attempt and returns how many there have been, this one included.
    package func recordReportAttempt() -> Int {
        state.withLock { state in
            state.counts.reportAttempts += 1
            return state.counts.reportAttempts
        }
    }
}
