#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking

/// The delegate queue of a ``URLSessionTransport``'s session on Linux: it runs each delegate callback at once, on
/// the thread that adds it (URLSession's own serial work queue), instead of handing it to a serial
/// `OperationQueue` of its own.
///
/// Why: FoundationNetworking adds one operation per callback (head, each chunk, completion, progress) to the
/// delegate queue, and each costs a thread hand-off. With 64 requests in flight the hand-offs made the streaming
/// delegate road about 0.7× as fast as `data(for:)`, which calls its completion handler inline on the work queue
/// (measured on 2 shared cores, Swift 6.3.1). Running the callbacks inline makes the two roads cost the same.
///
/// What it requires of the delegate (``SessionDelegate`` keeps to it): a callback never calls back into
/// URLSession synchronously (`cancel()`, `suspend()`, `resume()` wait on the work queue that is running the
/// callback, so they are dispatched elsewhere), never blocks, and hands authentication challenges (whose answers
/// suspend and resume the task, and which may reach a borrowed delegate's code) to a queue of its own. The order of
/// a task's callbacks is kept: URLSession adds them in order from its one serial work queue.
///
/// `@unchecked Sendable`: `OperationQueue` is not `Sendable`; this subclass adds no state, and every method it
/// overrides only runs what it is given.
final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
    override init() {
        super.init()
        name = "NetKit.URLSessionTransport.inline"
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }

    override func addOperation(_ operation: Operation) {
        operation.start()
    }

    override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        for operation in operations { operation.start() }
    }

    override func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
        barrier()
    }
}
#endif
