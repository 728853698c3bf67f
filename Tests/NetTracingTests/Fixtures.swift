#if Tracing
import Foundation
import InMemoryTracing
import NetCore
import Tracing

let base = URL(string: "https://api.test/v1")!

/// A GET with a secret query value and a cookie, and as many retries as asked.
struct Search: Endpoint {
    typealias Response = EmptyResponse
    var retries = 0
    var path: String { "/search" }
    var method: HTTPMethod { .get }
    var queryParameters: [String: String]? { ["api_key": "SECRET", "q": "cats"] }
    var headers: [String: String]? { ["Cookie": "session=cookie-s3cr3t"] }
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetryCount: retries, delay: 0) }
}

/// Names the request's operation, as NetOpenAPI does.
struct NamesOperation: Plugin {
    let operationID: String
    var priority: PluginPriority { .high }

    func prepare(_ request: TransportRequest, context: PluginContext) async throws -> TransportRequest {
        var request = request
        request.operationID = operationID
        return request
    }
}

/// `InMemoryTracer` with W3C-shaped IDs whose `inject` writes `traceparent`, as an OpenTelemetry tracer does
/// (`InMemoryTracer`'s own writes `in-memory-trace-id` and `in-memory-span-id`).
struct W3CTracer: Tracer {
    let recorder = InMemoryTracer(idGenerator: Self.hexIDs)

    static var hexIDs: InMemoryTracer.IDGenerator {
        let traces = InMemoryTracer.IDGenerator.incrementing
        let spans = InMemoryTracer.IDGenerator.incrementing
        return InMemoryTracer.IDGenerator(
            nextTraceID: { hex(traces.nextTraceID(), width: 32) },
            nextSpanID: { hex(spans.nextSpanID(), width: 16) })
    }

    /// `trace-12` → `000…00c`, `width` digits.
    private static func hex(_ id: String, width: Int) -> String {
        let number = Int(id.split(separator: "-").last ?? "") ?? 0
        let digits = String(number, radix: 16)
        return String(repeating: "0", count: width - digits.count) + digits
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorder.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
            line: line)
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    /// The finished spans, the request's first.
    var spans: (request: FinishedInMemorySpan?, attempts: [FinishedInMemorySpan]) {
        let finished = recorder.finishedSpans
        let request = finished.first { span in !finished.contains { $0.spanID == span.parentSpanID } }
        return (request, finished.filter { $0.parentSpanID != nil && $0.parentSpanID == request?.spanID })
    }
}

extension FinishedInMemorySpan {
    /// A string attribute's value.
    func string(_ name: String) -> String? {
        if case .string(let value) = attributes.get(name) { return value }
        return nil
    }

    /// An integer attribute's value.
    func int(_ name: String) -> Int64? {
        switch attributes.get(name) {
        case .int64(let value): value
        case .int32(let value): Int64(value)
        default: nil
        }
    }

    /// Every attribute value, and every recorded error, as text.
    var texts: [String] {
        var texts = errors.map { "\($0.error)" }
        func add(_ name: String, _ value: SpanAttribute) { texts.append("\(name)=\(value)") }
        // SpanAttributes is no Sequence: its own forEach is the only way through it.
        attributes.forEach(add)
        return texts
    }
}
#endif
