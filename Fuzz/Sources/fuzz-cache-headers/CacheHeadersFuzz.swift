import CLibFuzzer
import FuzzSupport
import NetCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The response cache's readers of `Cache-Control`, `Vary`, HTTP dates, `Age` and `Expires` (NetCore's
/// `CacheControl`, `CachedResponse.varyNames`, `CookieDate`, `CacheFreshness`, `CachePolicy`: `package`
/// declarations, reached through the package name Package.swift gives this harness).
///
/// Checked beyond "no crash": every parsed delta is within 0...2^31 (`max-stale` without a value: `Int.max`);
/// directives written back out parse to the same directives; `Vary` names are lowercased, trimmed, non-empty and
/// unique, or `nil` exactly when one is `*`; a parsed date lies in 1601...9999 and formats back (IMF-fixdate) to
/// itself, and a date made from the input parses back from IMF-fixdate, asctime and (years 1970-2069) RFC 850;
/// freshness lifetime, age and what is left are finite, never negative where they cannot be, `age` never below the
/// initial age whatever the clock does; a stored response's `Age` is a whole number within 0...2^31; `no-store` is
/// never stored; `no-cache` is never served without validation.
///
/// Input: 12 bytes of times (request, response and now, each a signed 32-bit offset), then NUL-separated fields:
/// response `Cache-Control` (0x01 splits it into several fields), `Vary` (likewise), `Date`, `Expires`, `Age`,
/// request `Cache-Control`, and a free text read as an HTTP date.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let base = 1_700_000_000.0
    let requestTime = Date(timeIntervalSince1970: base + Double(offset(&input)))
    let responseTime = requestTime.addingTimeInterval(Double(offset(&input)))
    let now = responseTime.addingTimeInterval(Double(offset(&input)))
    let cacheControl = input.string().split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
    let vary = input.string().split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
    let date = input.string()
    let expires = input.string()
    let age = input.string()
    let requestControl = input.string()
    let text = input.string()

    var pairs: [(name: String, value: String)] = []
    pairs += cacheControl.map { (name: "Cache-Control", value: $0) }
    pairs += vary.map { (name: "Vary", value: $0) }
    pairs += [("Date", date), ("Expires", expires), ("Age", age), ("ETag", "\"e\"")]
    // A value the wire cannot carry (CR, LF, NUL) is refused, as it would be from a transport.
    let fields = HTTPHeaderFields(pairs.compactMap { try? HTTPHeaderField(name: $0.name, value: $0.value) })

    checkDirectives(CacheControl(fields))
    for value in cacheControl { checkDirectives(CacheControl(value)) }
    let requestDirectives = CacheControl(requestControl)
    checkDirectives(requestDirectives)
    checkDelta(age)
    checkVary(fields)
    checkParsedDate(text)
    checkParsedDate(date)
    checkFormattedDate(seconds: Int(offset(&input)) * 64)
    checkFreshness(fields, requestTime: requestTime, responseTime: responseTime, now: now)
    checkStorage(fields, requestDirectives, requestTime: requestTime, responseTime: responseTime, now: now)
    return 0
}

/// A signed 32-bit number from the next four bytes.
func offset(_ input: inout FuzzInput) -> Int32 {
    var bits: UInt32 = 0
    for _ in 0..<4 { bits = bits << 8 | UInt32(input.byte()) }
    return Int32(bitPattern: bits)
}

/// Deltas within 0...2^31; the directives written back out read the same.
func checkDirectives(_ control: CacheControl) {
    let bound = CacheControl.maximumDelta
    for (name, value) in [
        ("max-age", control.maxAge), ("min-fresh", control.minFresh),
        ("stale-while-revalidate", control.staleWhileRevalidate), ("stale-if-error", control.staleIfError),
    ] {
        if let value { check((0...bound).contains(value), "\(name) \(value) is out of bounds") }
    }
    if let stale = control.maxStale {
        check((0...bound).contains(stale) || stale == Int.max, "max-stale \(stale) is out of bounds")
    }
    let written = serialized(control)
    check(CacheControl(written) == control, "\(written.debugDescription) does not read back as it was written")
}

/// `control` as one `Cache-Control` value.
func serialized(_ control: CacheControl) -> String {
    var parts: [String] = []
    if control.noStore { parts.append("no-store") }
    if control.noCache { parts.append("no-cache") }
    if control.mustRevalidate { parts.append("must-revalidate") }
    if control.isPrivate { parts.append("private") }
    if control.onlyIfCached { parts.append("only-if-cached") }
    if let maxAge = control.maxAge { parts.append("max-age=\(maxAge)") }
    if let stale = control.maxStale { parts.append(stale == Int.max ? "max-stale" : "max-stale=\(stale)") }
    if let fresh = control.minFresh { parts.append("min-fresh=\(fresh)") }
    if control.isPublic { parts.append("public") }
    if control.mustUnderstand { parts.append("must-understand") }
    if control.immutable { parts.append("immutable") }
    if let window = control.staleWhileRevalidate { parts.append("stale-while-revalidate=\(window)") }
    if let window = control.staleIfError { parts.append("stale-if-error=\(window)") }
    return parts.joined(separator: ", ")
}

/// A delta is `nil` or within 0...2^31, and is the number itself when it is a short run of digits.
func checkDelta(_ text: String) {
    let trimmed = CacheControl.trimmed(Substring(text))
    guard let value = CacheControl.deltaSeconds(trimmed) else { return }
    check((0...CacheControl.maximumDelta).contains(value), "delta \(value) is out of bounds")
    if trimmed.utf8.count <= 9 { check(Int(trimmed) == value, "\(trimmed) read as \(value)") }
}

/// `nil` exactly when a listed name is `*`; otherwise lowercased, trimmed, non-empty, unique names.
func checkVary(_ fields: HTTPHeaderFields) {
    let listed = fields.values(for: "Vary").flatMap { $0.split(separator: ",") }.map { CacheControl.trimmed($0) }
    guard let names = CachedResponse.varyNames(fields) else {
        check(listed.contains("*"), "Vary read as * without one")
        return
    }
    check(!listed.contains("*"), "Vary * was missed")
    check(Set(names).count == names.count, "Vary names repeat: \(names)")
    for name in names {
        check(!name.isEmpty && name == name.lowercased(), "Vary name \(name.debugDescription)")
        check(CacheControl.trimmed(Substring(name)) == Substring(name), "Vary name \(name.debugDescription) untrimmed")
    }
}

/// The seconds since 1970 of 1601-01-01 and of 9999-12-31 23:59:59: the dates a parsed date may name.
let earliestDate = -11_644_473_600.0
let latestDate = 253_402_300_799.0

/// A date parsed from any text lies in 1601...9999 and formats back to itself.
func checkParsedDate(_ text: String) {
    guard let date = CookieDate.parse(text) else { return }
    let seconds = date.timeIntervalSince1970
    check(seconds.isFinite && (earliestDate...latestDate).contains(seconds), "\(text.debugDescription) → \(seconds)")
    let formatted = httpDate(Int(seconds), style: .imfFixdate)
    check(CookieDate.parse(formatted) == date, "\(formatted) does not read back as \(seconds)")
}

/// A date made from the input reads back from each of HTTP's three formats.
func checkFormattedDate(seconds: Int) {
    let seconds = min(max(seconds, Int(earliestDate)), Int(latestDate))
    let date = Date(timeIntervalSince1970: TimeInterval(seconds))
    let year = civil(days: floorDivide(seconds, 86_400)).year
    var styles: [DateStyle] = [.imfFixdate, .asctime]
    if (1970...2069).contains(year) { styles.append(.rfc850) }
    for style in styles {
        let text = httpDate(seconds, style: style)
        check(CookieDate.parse(text) == date, "\(text) does not read back as \(seconds)")
    }
}

/// Lifetime, ages and what is left are finite; lifetime and ages never negative; the age at any instant is at least
/// the initial age (even with the clock gone back); fresh exactly when something is left.
func checkFreshness(_ fields: HTTPHeaderFields, requestTime: Date, responseTime: Date, now: Date) {
    let head = HTTPResponseHead(statusCode: 200, headerFields: fields)
    let freshness = CacheFreshness(head: head, requestTime: requestTime, responseTime: responseTime)
    check(freshness.lifetime.isFinite && freshness.lifetime >= 0, "lifetime \(freshness.lifetime)")
    check(freshness.lifetime <= latestDate - earliestDate, "lifetime \(freshness.lifetime) past any date")
    check(freshness.initialAge.isFinite && freshness.initialAge >= 0, "initial age \(freshness.initialAge)")
    for instant in [now, responseTime, requestTime, responseTime.addingTimeInterval(-1)] {
        let age = freshness.age(at: instant)
        check(age.isFinite && age >= freshness.initialAge, "age \(age) below \(freshness.initialAge)")
        let remaining = freshness.remaining(at: instant)
        check(remaining.isFinite, "remaining \(remaining)")
        check(freshness.isFresh(at: instant) == (remaining > 0), "fresh disagrees with remaining \(remaining)")
    }
}

/// A transport for the partition of a stored response: a value, so told apart by its type.
struct HarnessTransport: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        throw CancellationError()
    }
}

/// The request every stored response answers, and whose it is: made once, not per input.
let storedRequest = HTTPRequestHead(
    uncheckedMethod: .get, scheme: "https", authority: "api.test", path: "/items", headerFields: HTTPHeaderFields())
let storedPartition = CredentialPartition(
    storedRequest, credentialFields: .standard, transport: TransportIdentity(HarnessTransport()), cookieJar: nil)

/// `no-store` on either side is never stored, and is the reason given (unless `must-understand` lets the
/// response's be stored); `Vary: *` never is; a stored response's `Age` is a whole number within 0...2^31;
/// `no-cache` on either side is never served without validation, and what is served has an age.
func checkStorage(
    _ fields: HTTPHeaderFields, _ request: CacheControl, requestTime: Date, responseTime: Date, now: Date
) {
    let response = HTTPResponseHead(statusCode: 200, headerFields: fields)
    let control = CacheControl(fields)
    let refusal = CachePolicy.storageRefusal(
        response, isComplete: true, request: request, requestTime: requestTime, responseTime: responseTime)
    let stores = refusal == nil
    // must-understand stores a response of an understood status (every one here is a 200) despite no-store.
    if control.noStore && !control.mustUnderstand || request.noStore {
        check(refusal == .noStore, "no-store was not refused as no-store: \(String(describing: refusal))")
    }
    guard
        let stored = CachedResponse(
            head: response, body: Data(), request: storedRequest, partition: storedPartition,
            requestTime: requestTime, responseTime: responseTime)
    else {
        check(CachedResponse.varyNames(fields) == nil, "a response without Vary: * was refused")
        check(!stores, "Vary: * was stored")
        return
    }
    let ageText = stored.head(at: now).headerFields.value(for: "Age") ?? ""
    let ageValue = Int(ageText)
    check(ageValue.map { (0...CacheControl.maximumDelta).contains($0) } == true, "Age \(ageText.debugDescription)")
    switch CachePolicy.use(stored, request: request, at: now) {
    case .serve(let age):
        check(!control.noCache && !request.noCache, "no-cache was served without validation")
        check(age.isFinite && age >= 0, "served at age \(age)")
    case .serveStale(let age):
        check(!control.noCache && !request.noCache, "no-cache was served stale without validation")
        check(!control.mustRevalidate, "must-revalidate was served stale")
        check(request.maxStale != nil, "served stale without max-stale")
        check(age.isFinite && age >= 0, "served stale at age \(age)")
    case .serveWhileRevalidating(let age):
        check(!control.noCache && !request.noCache, "no-cache was served stale without validation")
        check(!control.mustRevalidate, "must-revalidate was served stale")
        check(control.staleWhileRevalidate != nil, "served stale without stale-while-revalidate")
        check(age.isFinite && age >= 0, "served stale at age \(age)")
    case .validate:
        break
    }
}

// MARK: HTTP dates, written the three ways RFC 9110 §5.6.7 reads them

enum DateStyle {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    case imfFixdate
    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    case rfc850
    /// `Sun Nov  6 08:49:37 1994`
    case asctime
}

let dayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/// `seconds` since 1970 (UTC) in `style`.
func httpDate(_ seconds: Int, style: DateStyle) -> String {
    let days = floorDivide(seconds, 86_400)
    let second = seconds - days * 86_400
    let (year, month, day) = civil(days: days)
    // 1970-01-01 was a Thursday.
    let weekday = dayNames[((days % 7) + 7 + 4) % 7]
    let time = "\(padded(second / 3_600)):\(padded(second / 60 % 60)):\(padded(second % 60))"
    let monthName = monthNames[month - 1]
    switch style {
    case .imfFixdate:
        return "\(weekday.prefix(3)), \(padded(day)) \(monthName) \(padded(year, width: 4)) \(time) GMT"
    case .rfc850:
        return "\(weekday), \(padded(day))-\(monthName)-\(padded(year % 100)) \(time) GMT"
    case .asctime:
        let dayText = day < 10 ? " \(day)" : "\(day)"
        return "\(weekday.prefix(3)) \(monthName) \(dayText) \(time) \(padded(year, width: 4))"
    }
}

func padded(_ value: Int, width: Int = 2) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}

func floorDivide(_ value: Int, _ divisor: Int) -> Int {
    value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
}

/// The year, month and day of `days` since 1970-01-01 (proleptic Gregorian; Howard Hinnant's `civil_from_days`).
func civil(days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = floorDivide(z, 146_097)
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}

/// The executable's entry point (SwiftPM links `main` to it): libFuzzer's driver, on this harness.
@_cdecl("fuzz_cache_headers_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    netkit_fuzz_run(argc, argv, fuzzCacheHeaders)
}
