import Foundation  // FileHandle: not in FoundationEssentials
import NetCore
import NetKitLock

/// What a reply's faults do to its body, gathered from the list.
struct StubBodyPlan: Sendable {
    /// Where the connection closes (the earliest of several), in bytes of body.
    var closeAfter: Int?
    /// Where the body stops, and for how long, in the order added.
    var stalls: [(afterBytes: Int, duration: Duration)] = []
    /// The bytes the head declares beyond the real ones.
    var missingBytes = 0
    /// The largest piece and the gap between pieces, when the body trickles (the smallest piece and longest gap
    /// of several).
    var trickle: (bytes: Int, every: Duration)?

    init(_ faults: [StubFault]) {
        for fault in faults {
            switch fault.kind {
            case .closeMidBody(let bytes):
                closeAfter = min(closeAfter ?? bytes, bytes)
            case .stallMidBody(let bytes, let duration):
                stalls.append((bytes, duration))
            case .declaredLengthNotReached(let missing):
                missingBytes += missing
            case .trickle(let bytes, let every):
                trickle = (min(trickle?.bytes ?? bytes, bytes), max(trickle?.every ?? every, every))
            case .resetBeforeHead, .stallAtStart:
                break
            }
        }
    }

    /// Whether any fault acts on the body (the others act before the head).
    var changesBody: Bool { closeAfter != nil || !stalls.isEmpty || missingBytes > 0 || trickle != nil }

    /// The silence the stalls due once `delivered` bytes have come make, together.
    func stall(at delivered: Int) -> Duration {
        stalls.reduce(.zero) { $0 + ($1.afterBytes == delivered ? $1.duration : .zero) }
    }
}
