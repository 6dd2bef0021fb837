import Foundation
import KeyedArchive

// `hardening-probe stack KILOBYTES`: every decoding path (and the encoders) at the default
// limits, each on a fresh thread with a KILOBYTES stack. A path must give a value or a
// thrown error; a stack overflow kills the probe, which the parent test reports.

/// A chain of objects, each holding the next: the deepest `KeyedCoding` shape.
final class StackLink: SecureKeyedCoding, Codable {
    static var archivedClassName: String { "StackLink" }
    var next: StackLink?
    init(next: StackLink?) { self.next = next }
    func encode(with coder: KeyedArchiver) { coder.encode(next, forKey: "next") }
    init(coder: KeyedUnarchiver) throws { next = try coder.decodeObject(of: StackLink.self, forKey: "next") }

    static func chain(_ length: Int) -> StackLink {
        var link = StackLink(next: nil)
        for _ in 1..<max(1, length) { link = StackLink(next: link) }
        return link
    }
}

/// Runs `body` on a new thread with a stack of `bytes`, waiting for it.
func onThread(stackBytes bytes: Int, _ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, bytes)
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let created = pthread_create(
        &thread, &attributes,
        { argument in
            #if canImport(Darwin)
            let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
            #else
            guard let argument else { return nil }
            let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
            #endif
            box.body()
            return nil
        }, box)
    guard created == 0 else {
        say("note: could not create a thread (\(created))")
        return
    }
    #if canImport(Darwin)
    if let thread { pthread_join(thread, nil) }
    #else
    pthread_join(thread, nil)
    #endif
}

/// Describes how `body` ended, for the probe's output.
func outcome(_ body: () throws -> Any?) -> String {
    do {
        _ = try body()
        return "value"
    } catch let error as KeyedArchiveError {
        return "error \(error.code)\(levels(error))"
    } catch let error as DecodingError {
        if case .dataCorrupted(let context) = error,
            let underlying = context.underlyingError as? KeyedArchiveError
        {
            return "error \(underlying.code)\(levels(underlying))"
        }
        return "decoding error \(error)"
    } catch let error as EncodingError {
        if case .invalidValue(_, let context) = error,
            let underlying = context.underlyingError as? KeyedArchiveError
        {
            return "error \(underlying.code)\(levels(underlying))"
        }
        return "encoding error"
    } catch {
        return "UNEXPECTED \(type(of: error))"
    }
}

/// " (at N levels)" when the stack stopped the nesting, for working out the stack per level.
func levels(_ error: KeyedArchiveError) -> String {
    guard let range = error.message.range(of: "nesting stopped at ") else { return "" }
    return " (stack at \(error.message[range.upperBound...].prefix { $0.isNumber }) levels)"
}

/// `depth` nested arrays around a string, as a keyed archive of NSArrays.
func nestedArrayArchive(depth: Int) -> PropertyList {
    var objects: [PropertyList] = [
        "$null", ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]], "leaf",
    ]
    var inner = 2
    for _ in 0..<depth {
        objects.append(["$class": .uid(1), "NS.objects": [.uid(UInt64(inner))]])
        inner = objects.count - 1
    }
    return [
        "$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(UInt64(inner))],
        "$objects": .array(objects),
    ]
}

/// A plain property-list value nested `depth` deep.
func nestedValue(depth: Int) -> PropertyList {
    var value: PropertyList = "leaf"
    for level in 0..<depth { value = level % 2 == 0 ? .array([value]) : .dictionary(["k": value]) }
    return value
}

func stackProbe(kilobytes: Int) -> Never {
    let stack = kilobytes * 1024
    // The default limits: 512 levels of objects, 512 of plain values.
    let depth = 511
    let links =
        (try? KeyedArchiver.archivedData(withRootObject: StackLink.chain(depth), requiringSecureCoding: true))
    let arrays = (try? nestedArrayArchive(depth: depth).data(format: .binary)) ?? Data()
    let arraysXML = (try? nestedArrayArchive(depth: depth).data(format: .xml)) ?? Data()
    let codable = (try? KeyedArchiveEncoder().encode(StackLink.chain(depth))) ?? Data()
    let encodable: Data = {
        let archiver = KeyedArchiver()
        try? archiver.encodeEncodable(StackLink.chain(depth), forKey: KeyedArchiver.rootObjectKey)
        return archiver.encodedData
    }()
    let value = nestedValue(depth: depth)
    let valueData = (try? value.data(format: .binary)) ?? Data()
    say(
        "inputs: links \(links?.count ?? 0) B, arrays \(arrays.count) B, codable \(codable.count) B, \(encodable.count) B"
    )

    let cases: [(String, @Sendable () throws -> Any?)] = [
        (
            "typed KeyedCoding chain",
            { try KeyedUnarchiver.unarchivedObject(ofClass: StackLink.self, from: links ?? Data()) }
        ),
        (
            "untyped NSArray nesting",
            {
                let unarchiver = try KeyedUnarchiver(forReadingFrom: arrays)
                unarchiver.requiresSecureCoding = false
                return try unarchiver.decodeObject(forKey: "root")
            }
        ),
        (
            "untyped NSArray nesting (XML)",
            {
                let unarchiver = try KeyedUnarchiver(forReadingFrom: arraysXML)
                unarchiver.requiresSecureCoding = false
                return try unarchiver.decodeObject(forKey: "root")
            }
        ),
        ("object graph and outline", { try KeyedUnarchiver.objectGraph(from: arrays).outline() }),
        ("Codable decoder chain", { try KeyedArchiveDecoder().decode(StackLink.self, from: codable) }),
        (
            "decodeDecodable chain",
            {
                let unarchiver = try KeyedUnarchiver(forReadingFrom: encodable)
                return try unarchiver.decodeDecodable(StackLink.self, forKey: "root")
            }
        ),
        ("property list read", { try PropertyList(from: valueData) }),
        ("property list description", { value.description }),
        (
            "property list hash and equality",
            { value.hashValue == nestedValue(depth: depth).hashValue && value == value }
        ),
        ("property list as XML", { try value.data(format: .xml) }),
        ("property list as JSON", { try value.jsonData() }),
        (
            "archiving a chain of 511",
            {
                try KeyedArchiver.archivedData(
                    withRootObject: StackLink.chain(depth), requiringSecureCoding: true)
            }
        ),
        (
            "archiving a chain of 100,000",
            {
                try KeyedArchiver.archivedData(
                    withRootObject: StackLink.chain(100_000), requiringSecureCoding: true)
            }
        ),
        ("Codable encoder chain of 511", { try KeyedArchiveEncoder().encode(StackLink.chain(depth)) }),
        (
            "encodeEncodable chain of 511",
            {
                let archiver = KeyedArchiver()
                try archiver.encodeEncodable(StackLink.chain(depth), forKey: KeyedArchiver.rootObjectKey)
                return try archiver.finishedData()
            }
        ),
    ]
    var failed = false
    for (name, body) in cases {
        final class Result: @unchecked Sendable { var text = "" }
        let result = Result()
        onThread(stackBytes: stack) { result.text = outcome(body) }
        say("\(result.text): \(name)")
        if result.text.hasPrefix("UNEXPECTED") { failed = true }
    }
    say("done: \(cases.count) cases on \(kilobytes) KB threads")
    exit(failed ? 1 : 0)
}
