import Foundation
import NetCore

/// A URL cut into what a replay compares: the origin, the path and the query items, percent-encoded as sent.
struct HARURLParts {
    var scheme = ""
    var host = ""
    var port: Int?
    var path = "/"
    var query: [(name: String, value: String?)] = []

    init(_ string: String) {
        guard let components = URLComponents(string: string) else {
            path = string
            return
        }
        scheme = components.scheme?.lowercased() ?? ""
        host = components.percentEncodedHost?.lowercased() ?? ""
        port = components.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        query = (components.percentEncodedQueryItems ?? []).map { ($0.name, $0.value) }
    }

    /// The origin as text (`https://api.test:8443`).
    var origin: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")" }

    /// How `sent` differs from these recorded parts, one line each; query values of credentials are not shown.
    func differences(from sent: HARURLParts, comparingOrigin: Bool) -> [String] {
        var lines: [String] = []
        if comparingOrigin, origin != sent.origin {
            lines.append("origin: recorded \(origin), sent \(sent.origin)")
        }
        if path != sent.path { lines.append("path: recorded \(path), sent \(sent.path)") }
        return lines + queryDifferences(from: sent)
    }

    /// How `sent`'s query items differ from these, in any order; a recorded ``HARRedaction/placeholder`` value
    /// agrees with any value.
    func queryDifferences(from sent: HARURLParts) -> [String] {
        var unmatched = sent.query
        var lines: [String] = []
        for item in query {
            let index =
                unmatched.firstIndex { $0.name == item.name && $0.value == item.value }
                ?? unmatched.firstIndex { $0.name == item.name && item.value == HARRedaction.placeholder }
            if let index {
                unmatched.remove(at: index)
                continue
            }
            let sentValue = unmatched.first { $0.name == item.name }
            lines.append(
                "query item \(item.name): recorded \(Self.show(item.value)), sent "
                    + (sentValue.map { Self.show($0.value, secret: Self.isSecret($0.name)) } ?? "none"))
            if let sentIndex = unmatched.firstIndex(where: { $0.name == item.name }) {
                unmatched.remove(at: sentIndex)
            }
        }
        for item in unmatched {
            lines.append(
                "query item \(item.name): recorded none, sent \(Self.show(item.value, secret: Self.isSecret(item.name)))"
            )
        }
        return lines
    }

    private static func isSecret(_ name: String) -> Bool {
        CredentialFields.standard.containsQueryItem(name) || LogRedaction.isSecretName(name)
    }

    private static func show(_ value: String?, secret: Bool = false) -> String {
        guard let value else { return "(no value)" }
        return secret ? "(a credential)" : "\"\(value)\""
    }
}

/// Whether two JSON values agree, a recorded ``HARRedaction/placeholder`` agreeing with anything.
enum HARJSONComparison {
    static func agrees(recorded: Any, sent: Any) -> Bool {
        if let text = recorded as? String, text == HARRedaction.placeholder { return true }
        switch (recorded, sent) {
        case (let recorded as [String: Any], let sent as [String: Any]):
            guard recorded.keys.sorted() == sent.keys.sorted() else { return false }
            return recorded.allSatisfy { key, value in agrees(recorded: value, sent: sent[key]!) }
        case (let recorded as [Any], let sent as [Any]):
            guard recorded.count == sent.count else { return false }
            return zip(recorded, sent).allSatisfy { agrees(recorded: $0, sent: $1) }
        case (let recorded as NSNumber, let sent as NSNumber):
            return recorded == sent
        case (let recorded as String, let sent as String):
            return recorded == sent
        case (is NSNull, is NSNull):
            return true
        default:
            return false
        }
    }
}
