extension RenewOnce {
    /// The decisions of one request's renew-once, as a value: no I/O, no concurrency.
    ///
    /// ``RenewOnce/send(recovery:attempt:isRejected:willResend:)`` feeds it what happened (an answer arrived, a
    /// renewal ended) and carries out what it returns. A request is renewed at most once: the answer to the resend
    /// is final, rejected or not, so a server that rejects every credential costs one renewal, not a loop.
    package struct StateMachine: Sendable, Equatable {
        /// What to do with an answer.
        package enum AnswerAction: Sendable, Equatable {
            /// Hand it to the caller: accepted, not renewable, or already the answer to a resend.
            case deliver
            /// It is a rejection that may be renewed: renew the credential (or join the renewal in flight).
            case renew
        }

        /// How a renewal ended.
        package enum RenewalResult: Sendable, Equatable {
            /// A fresh credential is there (this renewal's, or one that ended since the request was sent).
            case renewed
            /// The renewal's own request was rejected: the request is part of the renewal and must not wait for it.
            case rejectedInsideRenewal
            /// The renewal was cancelled.
            case cancelled
            /// The renewal failed with an error of its own.
            case failed
        }

        /// What to do once the renewal ended.
        package enum RenewalAction: Sendable, Equatable {
            /// Send the request again with the fresh credential.
            case resend
            /// Hand the caller the rejection that asked for the renewal.
            case deliverRejection
            /// End with `CancellationError`.
            case cancel
            /// End with the renewal's error, marked so that no retry repeats it.
            case fail
        }

        private enum State: Sendable, Equatable {
            case first
            case renewing
            case resent
            case ended
        }

        private var state = State.first
        /// Whether the request can be renewed at all: a recovery exists and the request may be sent again.
        private let canRenew: Bool

        /// A request that can be renewed (`canRenew`) or not.
        package init(canRenew: Bool) {
            self.canRenew = canRenew
        }

        /// Whether the next answer could still lead to a renewal: when not, the caller need not ask whether it is a
        /// rejection.
        package var mayRenew: Bool { canRenew && state == .first }

        /// An answer arrived; `rejected`: the policy says the credential was rejected.
        package mutating func answered(rejected: Bool) -> AnswerAction {
            guard rejected, mayRenew else {
                state = .ended
                return .deliver
            }
            state = .renewing
            return .renew
        }

        /// The renewal a rejection asked for ended with `result`.
        package mutating func renewalEnded(_ result: RenewalResult) -> RenewalAction {
            precondition(state == .renewing, "a renewal ended that was never asked for")
            switch result {
            case .renewed:
                state = .resent
                return .resend
            case .rejectedInsideRenewal:
                state = .ended
                return .deliverRejection
            case .cancelled:
                state = .ended
                return .cancel
            case .failed:
                state = .ended
                return .fail
            }
        }
    }
}
