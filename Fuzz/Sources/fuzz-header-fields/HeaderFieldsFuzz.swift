import CLibFuzzer
import FuzzSupport
import NetCore

/// HTTPHeaderField and HTTPHeaderFields: any name and value are accepted or rejected without a crash; an accepted
/// field has a non-empty name and no CR, LF or NUL in its value, can be found again by its name in any letter case,
/// and survives `dictionary` and `description`.
/// Input: name/value pairs separated by NUL bytes; a name starting with "+" is added with `addValue`, the others set.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaderFields(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    var fields = HTTPHeaderFields()
    var accepted: [(name: String, value: String)] = []
    while !input.rest.isEmpty && accepted.count < 32 {
        let name = input.string()
        let value = input.string()
        do {
            let field = try HTTPHeaderField(name: name, value: value)
            check(!field.name.isEmpty, "an empty name was accepted")
            check(
                !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 },
                "value \(value.debugDescription) was accepted")
            _ = field.description
        } catch {
            _ = error.localizedDescription
        }
        do {
            if name.hasPrefix("+") {
                try fields.addValue(value, for: String(name.dropFirst()))
                accepted.append((String(name.dropFirst()), value))
            } else {
                try fields.setValue(value, for: name)
                accepted.append((name, value))
            }
        } catch {
            _ = error.localizedDescription
        }
    }
    for (name, _) in accepted {
        check(
            fields.value(for: name.uppercased()) != nil || fields.value(for: name) != nil,
            "\(name) was set but is not found")
        _ = fields.values(for: name)
    }
    _ = fields.dictionary
    _ = fields.description
    _ = try? HTTPHeaderFields(accepted)
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_header_fields_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzHeaderFields)
}
