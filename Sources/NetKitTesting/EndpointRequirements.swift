import Foundation
import NetCore

/// What a request type implements of `Endpoint`'s requirements and what it leaves to the protocol's
/// defaults, with the near misses Swift accepts without a word.
///
/// A property whose name is a requirement's but whose type is not (`var retryPolicy: RetryPolicy?`,
/// `var body: (any Encodable & Sendable)?`) compiles, satisfies nothing, and is never read: the protocol's default
/// is used (no retries, no body). No compiler warning says so. A test that names what each request means to
/// implement catches it before production:
///
/// ```swift
/// @Test func createOrderDeclaresItsBodyAndRetries() throws {
///     try EndpointRequirements(of: CreateOrder(item: "book")).expectOwn("body", "retryPolicy")
/// }
/// ```
///
/// What it can see: which requirements answered with the protocol's default (each default notes itself while the
/// report is made), and, among the type's **stored** properties, those named like a requirement that fell back
/// to its default: ``nearMisses``, with the type found and the type required. What it cannot see: a *computed*
/// near miss (`var retryPolicy: RetryPolicy? { … }`), which Swift's reflection does not list; such a requirement
/// shows only in ``defaultsInUse``, which is why ``expectOwn(_:)`` takes the names you mean to implement.
public struct EndpointRequirements: Sendable, CustomStringConvertible {
    /// One requirement of `Endpoint` (or EKNetwork's `NetworkRequest`, for `multipartData`): its exact
    /// type and what the protocol's default gives.
    public struct Requirement: Sendable, Hashable {
        /// The property's name.
        public let name: String
        /// Its type, exactly as a conforming type must declare it.
        public let type: String
        /// What the protocol's default gives.
        public let defaultValue: String
    }

    /// A stored property named like a requirement, of another type: it satisfies nothing, and the default is used.
    public struct NearMiss: Sendable, Hashable, CustomStringConvertible {
        /// The property's name.
        public let name: String
        /// The type it was declared with.
        public let declaredType: String
        /// The type the requirement has.
        public let requiredType: String

        /// `retryPolicy: Optional<RetryPolicy> is not RetryPolicy: …`.
        public var description: String {
            "\(name): \(declaredType) is not \(requiredType), so it satisfies nothing and the default is used"
        }
    }

    /// The requirements with a default, in the order `Endpoint` declares them; `path`, `method` and the
    /// `Response` type have none and must be implemented.
    public static let requirements: [Requirement] = [
        Requirement(name: "headers", type: "[String: String]?", defaultValue: "nil"),
        Requirement(name: "headerFields", type: "HTTPHeaderFields { get throws }", defaultValue: "no fields"),
        Requirement(name: "baseURL", type: "URL?", defaultValue: "nil: the engine's base URL"),
        Requirement(name: "queryParameters", type: "[String: String]?", defaultValue: "nil"),
        Requirement(name: "queryItems", type: "[URLQueryItem]?", defaultValue: "nil"),
        Requirement(name: "contentType", type: "String", defaultValue: "\"application/json\""),
        Requirement(name: "body", type: "RequestBody?", defaultValue: "nil: no body"),
        Requirement(name: "progress", type: "NetworkProgress?", defaultValue: "nil"),
        Requirement(
            name: "retryPolicy", type: "RetryPolicy",
            defaultValue: "the engine's default retry policy; without one, RetryPolicy(): no retries"),
        Requirement(name: "errorDecoder", type: "((Data) -> (any Error)?)?", defaultValue: "nil: HTTPError"),
        Requirement(name: "errorModel", type: "(any (Decodable & Error).Type)?", defaultValue: "nil"),
        Requirement(name: "decodesErrorModelOnSuccess", type: "Bool", defaultValue: "false"),
        Requirement(name: "responseKeyPath", type: "[String]?", defaultValue: "nil: the whole body"),
        Requirement(name: "allowsRetry", type: "Bool", defaultValue: "true"),
        Requirement(name: "jsonDecoder", type: "JSONDecoder", defaultValue: "the engine's default decoder"),
        Requirement(name: "jsonEncoder", type: "JSONEncoder", defaultValue: "the engine's default encoder"),
        Requirement(name: "allowsResponseDecoderOverride", type: "Bool", defaultValue: "true"),
        Requirement(name: "timeout", type: "Duration?", defaultValue: "nil: the engine's"),
        Requirement(name: "idleTimeout", type: "Duration?", defaultValue: "nil: the transport's"),
        Requirement(name: "connection", type: "ConnectionSettings?", defaultValue: "nil: the engine's"),
        Requirement(name: "plugins", type: "[any Plugin]", defaultValue: "[]"),
        Requirement(name: "requestMethod", type: "HTTPRequestMethod", defaultValue: "the method"),
        Requirement(name: "isIdempotent", type: "Bool", defaultValue: "the method's idempotency"),
        Requirement(name: "multipartData", type: "MultipartFormData?", defaultValue: "nil (NetworkRequest only)"),
    ]

    /// The request type's name.
    public let typeName: String
    /// The requirements that answered with the protocol's default, in ``requirements``' order.
    public let defaultsInUse: [String]
    /// Stored properties named like a requirement whose default is in use.
    public let nearMisses: [NearMiss]

    /// Reads every requirement of `request` and notes which answered with the protocol's default.
    public init<Request: Endpoint>(of request: Request) {
        let probe = DefaultsProbe()
        EndpointDefaults.withProbe(probe) {
            Self.read(request)
        }
        let noted = Set(probe.noted)
        let names = Self.requirements.map(\.name)
        typeName = String(reflecting: Request.self)
        defaultsInUse = names.filter(noted.contains)
        nearMisses = Mirror(reflecting: request).children.compactMap { child in
            guard var name = child.label else { return nil }
            if name.hasPrefix("_") { name.removeFirst() }  // a property wrapper's storage
            guard noted.contains(name), let requirement = Self.requirements.first(where: { $0.name == name }) else {
                return nil
            }
            return NearMiss(
                name: name, declaredType: String(describing: type(of: child.value)), requiredType: requirement.type)
        }
    }

    /// Reads each requirement as the engine does, through the protocol.
    private static func read<Request: Endpoint>(_ request: Request) {
        _ = request.headers
        _ = try? request.headerFields
        _ = request.baseURL
        _ = request.queryParameters
        _ = request.queryItems
        _ = request.contentType
        _ = try? request.makeBody()  // reads body, and EKNetwork's multipartData for a NetworkRequest
        _ = request.body
        _ = request.progress
        _ = request.retryPolicy
        _ = request.errorDecoder
        _ = request.errorModel
        _ = request.decodesErrorModelOnSuccess
        _ = request.responseKeyPath
        _ = request.allowsRetry
        _ = request.jsonDecoder
        _ = request.jsonEncoder
        _ = request.allowsResponseDecoderOverride
        _ = request.timeout
        _ = request.idleTimeout
        _ = request.connection
        _ = request.plugins
        _ = request.requestMethod
        _ = request.isIdempotent
    }

    /// Throws unless the request implements each requirement in `names` itself.
    /// - Throws: ``Unimplemented``, naming each requirement that fell back to its default, its exact type and the
    ///   near miss found for it.
    public func expectOwn(_ names: String...) throws {
        let missing = names.filter(defaultsInUse.contains)
        guard !missing.isEmpty else { return }
        throw Unimplemented(typeName: typeName, missing: missing, nearMisses: nearMisses)
    }

    /// Some requirements a test expected a request to implement fall back to the protocol's default.
    public struct Unimplemented: Error, Sendable, CustomStringConvertible {
        /// The request type's name.
        public let typeName: String
        /// The requirements that fell back to their default.
        public let missing: [String]
        /// The near misses found among the type's stored properties.
        public let nearMisses: [NearMiss]

        /// One line per requirement: its exact type, and the near miss found.
        public var description: String {
            let lines = missing.map { name in
                let required = EndpointRequirements.requirements.first { $0.name == name }
                var line = "\(name) uses the protocol's default (\(required?.defaultValue ?? "?")): declare it as "
                line += "`var \(name): \(required?.type ?? "?")`"
                if let miss = nearMisses.first(where: { $0.name == name }) {
                    line += "; the property found is \(miss.declaredType)"
                } else {
                    line += "; a computed property of another type would look like this too"
                }
                return line
            }
            return "\(typeName) does not implement what the test expects: " + lines.joined(separator: "; ")
        }
    }

    /// The type, the defaults in use and the near misses, on one line.
    public var description: String {
        var text =
            "\(typeName): defaults in use: \(defaultsInUse.isEmpty ? "none" : defaultsInUse.joined(separator: ", "))"
        if !nearMisses.isEmpty { text += "; near misses: " + nearMisses.map(\.description).joined(separator: "; ") }
        return text
    }
}
