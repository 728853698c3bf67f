/// The faults of one response, folded into the few decisions the writer has to make.
struct FaultPlan {
    var delayBeforeHead: Duration = .zero
    var delayBeforeBody: Duration = .zero
    var dropAfterBodyBytes: Int?
    var declaredContentLength: Int?
    var chunkSizes: [Int]?
    var splitSizes: [Int]?
    var paddingBytes: Int?
    var closeAfterResponse = false
    var closeWithoutResponse = false

    init(_ faults: [LoopbackFault]) {
        for fault in faults {
            switch fault {
            case let .delayBeforeHead(duration): delayBeforeHead += max(duration, .zero)
            case let .delayBeforeBody(duration): delayBeforeBody += max(duration, .zero)
            case let .dropAfterBodyBytes(count): dropAfterBodyBytes = max(count, 0)
            case let .declaredContentLength(length): declaredContentLength = max(length, 0)
            case let .chunked(sizes): chunkSizes = sizes.filter { $0 > 0 }
            case let .splitWrites(sizes): splitSizes = sizes.filter { $0 > 0 }
            case let .hugeHeader(bytes): paddingBytes = max(bytes, 0)
            case .closeAfterResponse: closeAfterResponse = true
            case .closeWithoutResponse: closeWithoutResponse = true
            }
        }
    }

    /// The faults that reshape a ready-made body, by name; they cannot apply to a streamed one.
    var bodyShapingFaults: [String] {
        [
            dropAfterBodyBytes.map { _ in "dropAfterBodyBytes" },
            declaredContentLength.map { _ in "declaredContentLength" },
            chunkSizes.map { _ in "chunked" },
            splitSizes.map { _ in "splitWrites" },
        ].compactMap { $0 }
    }

    /// Faults that leave the client unable to find the next response's start force a close.
    var breaksFraming: Bool {
        dropAfterBodyBytes != nil || declaredContentLength != nil
    }
}
