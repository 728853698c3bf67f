/// The header fields of a request or a response, in order: repeated names are kept, names are looked up
/// case-insensitively, and every name and value is checked when it is set.
///
/// ```swift
/// var fields = HTTPHeaderFields()
/// try fields.setValue("application/json", for: "Accept")
/// try fields.addValue("a=1", for: "Cookie")
/// fields.value(for: "accept")            // "application/json"
/// response.headerFields.values(for: "Set-Cookie")   // every cookie, one string each
/// ```
///
/// Nothing reaches the wire with CR, LF or NUL: each mutation throws ``NetworkError/invalidHeader(name:)``
/// instead (see ``HTTPHeaderField``).
public struct HTTPHeaderFields: Sendable, Hashable, RandomAccessCollection {
    private var fields: [HTTPHeaderField]

    /// No fields.
    public init() {
        fields = []
    }

    /// The fields of a dictionary, sorted by name so that the order is the same on every run.
    /// - Throws: ``NetworkError/invalidHeader(name:)`` for the first invalid field.
    public init(_ dictionary: [String: String]) throws(NetworkError) {
        fields = []
        fields.reserveCapacity(dictionary.count)
        for (name, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            fields.append(try HTTPHeaderField(name: name, value: value))
        }
    }

    /// The fields `(name, value)` in this order, repeated names kept.
    /// - Throws: ``NetworkError/invalidHeader(name:)`` for the first invalid field.
    public init(_ pairs: [(name: String, value: String)]) throws(NetworkError) {
        fields = []
        fields.reserveCapacity(pairs.count)
        for (name, value) in pairs {
            fields.append(try HTTPHeaderField(name: name, value: value))
        }
    }

    /// Fields already checked, in order.
    public init(_ fields: [HTTPHeaderField]) {
        self.fields = fields
    }

    // MARK: Collection

    /// The position of the first field.
    public var startIndex: Int { fields.startIndex }
    /// The position after the last field.
    public var endIndex: Int { fields.endIndex }
    /// The field at `position`.
    public subscript(position: Int) -> HTTPHeaderField { fields[position] }

    // MARK: Reading

    /// The value of the fields named `name` (any case): one field's value as it is, several joined with `", "`
    /// as RFC 9110 §5.3 allows (`"; "` for `Cookie`, RFC 6265 §5.4); `nil` when there is none.
    ///
    /// `Set-Cookie` fields cannot be joined without changing their meaning: read them with ``values(for:)``.
    public func value(for name: String) -> String? {
        var result: String?
        // By index, not `for field in fields`: a field read in place is not copied (its two strings retained) to
        // compare its name, and every response is asked for a few of its fields.
        for index in fields.indices where HeaderValidation.namesMatch(fields[index].name, name) {
            if let first = result {
                let separator = HeaderValidation.namesMatch(name, "Cookie") ? "; " : ", "
                result = first + separator + fields[index].value
            } else {
                result = fields[index].value
            }
        }
        return result
    }

    /// The value of every field named `name` (any case), in order.
    public func values(for name: String) -> [String] {
        fields.compactMap { HeaderValidation.namesMatch($0.name, name) ? $0.value : nil }
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(_ name: String) -> Bool {
        fields.indices.contains { HeaderValidation.namesMatch(fields[$0].name, name) }
    }

    /// The fields as a dictionary: one entry per name, under its first spelling, repeated values joined as
    /// ``value(for:)`` joins them. For EKNetwork's `[String: String]` headers.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(fields.count)
        var spellings: [String: String] = [:]
        for field in fields {
            let key = HeaderValidation.lowercased(field.name)
            if let spelling = spellings[key] {
                let separator = key == "cookie" ? "; " : ", "
                result[spelling, default: ""] += separator + field.value
            } else {
                spellings[key] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    // MARK: Changing

    /// Makes `value` the only value of `name`: the first field of that name (any case) takes it, the others go; a
    /// new field is added at the end when there is none. `nil` removes every field of that name.
    /// - Throws: ``NetworkError/invalidHeader(name:)``; the fields are then unchanged.
    public mutating func setValue(_ value: String?, for name: String) throws(NetworkError) {
        guard let value else { return removeValues(for: name) }
        set(try HTTPHeaderField(name: name, value: value))
    }

    /// Adds a field `name: value` at the end, after any field of the same name (a repeated field).
    /// - Throws: ``NetworkError/invalidHeader(name:)``; the fields are then unchanged.
    public mutating func addValue(_ value: String, for name: String) throws(NetworkError) {
        fields.append(try HTTPHeaderField(name: name, value: value))
    }

    /// Adds `field` at the end.
    public mutating func append(_ field: HTTPHeaderField) {
        fields.append(field)
    }

    /// Makes `field` the only field of its name, in the place of the first one of that name.
    public mutating func set(_ field: HTTPHeaderField) {
        guard let first = fields.firstIndex(where: { HeaderValidation.namesMatch($0.name, field.name) }) else {
            return fields.append(field)
        }
        fields[first] = field
        var index = fields.index(after: first)
        while index < fields.endIndex {
            if HeaderValidation.namesMatch(fields[index].name, field.name) {
                fields.remove(at: index)
            } else {
                index += 1
            }
        }
    }

    /// Removes every field named `name` (any case).
    public mutating func removeValues(for name: String) {
        fields.removeAll { HeaderValidation.namesMatch($0.name, name) }
    }

    /// Keeps room for `count` fields.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }
}

extension HTTPHeaderFields: CustomStringConvertible {
    /// The fields as `Name: value` lines, values of fields that carry secrets hidden.
    public var description: String {
        fields.map(\.description).joined(separator: "\n")
    }
}

extension HTTPHeaderFields: CustomReflectable {
    /// The fields in order, each with a secret value hidden (see ``HTTPHeaderField/customMirror``).
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: fields, displayStyle: .collection)
    }

    /// These fields with the values of the fields `credentials` names (and of secret-looking names) replaced by
    /// a placeholder: what a mirror of a request shows.
    func hidingValues(of credentials: CredentialFields) -> HTTPHeaderFields {
        HTTPHeaderFields(
            fields.map { field in
                guard credentials.containsHeader(field.name) || LogRedaction.isSecretName(field.name) else {
                    return field
                }
                return HTTPHeaderField(uncheckedName: field.name, value: LogRedaction.placeholder)
            })
    }
}
