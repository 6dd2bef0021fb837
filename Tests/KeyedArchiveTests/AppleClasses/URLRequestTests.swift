import Foundation
import KeyedArchive
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NSURLRequest` / `NSMutableURLRequest`: both layouts read, every field kept and written
/// back, and the layout we write for new requests read by Foundation on this machine.
@Suite struct URLRequestTests {
    static let url = URL(string: "https://example.com/a?b=1") ?? URL(fileURLWithPath: "/")
    static let main = URL(string: "https://example.com/") ?? URL(fileURLWithPath: "/")

    static func sample(isMutable: Bool = false) -> ArchivedURLRequest {
        ArchivedURLRequest(
            url: url, httpMethod: "POST", headerFields: ["Content-Type": "text/plain", "X-A": "x"],
            body: Data("hello".utf8), timeoutInterval: 42, cachePolicy: 3, mainDocumentURL: main,
            isMutable: isMutable)
    }

    @Test func newRequestRoundTrip() throws {
        for isMutable in [false, true] {
            let data = try KeyedArchiver.archivedData(
                withRootObject: Self.sample(isMutable: isMutable), requiringSecureCoding: true)
            let archive = try PropertyList(from: data)
            let classes = AppleFixture.objects(
                ofClass: isMutable ? "NSMutableURLRequest" : "NSURLRequest", in: archive)
            #expect(classes == [1])
            let request = try #require(
                try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedURLRequest.self, from: data))
            #expect(request.layout == .foundationOnLinux)
            #expect(request.isMutable == isMutable)
            #expect(request.className == (isMutable ? "NSMutableURLRequest" : "NSURLRequest"))
            #expect(request.url == Self.url)
            #expect(request.httpMethod == "POST")
            #expect(request.headerFields == ["Content-Type": "text/plain", "X-A": "x"])
            #expect(request.body == Data("hello".utf8))
            #expect(request.timeoutInterval == 42)
            #expect(request.cachePolicy == 3)
            #expect(request.mainDocumentURL == Self.main)
            #expect(request.httpShouldHandleCookies == true)
            #expect(request.archiveList.isEmpty && request.archiveListVersion == nil)
            #expect(request.description == "POST https://example.com/a?b=1")
            #expect(Set(request.fields.keys) == Set(Self.sample(isMutable: isMutable).fields.keys))
            // Read and written again: the same property list.
            let again = try KeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
            #expect(try AppleFixture.rootTree(again) == AppleFixture.rootTree(data))
            #expect(try PropertyList(from: again) == archive)
        }
        let chain = try PropertyList(
            from: KeyedArchiver.archivedData(
                withRootObject: Self.sample(isMutable: true), requiringSecureCoding: true))
        #expect(
            chain["$objects"]?.arrayValue?.contains {
                $0["$classes"] == ["NSMutableURLRequest", "NSURLRequest", "NSObject"]
            } == true)
    }

    @Test func minimalRequest() throws {
        let request = ArchivedURLRequest(url: URL(string: "file:///tmp/x")!)
        let data = try KeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        let copy = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedURLRequest.self, from: data))
        #expect(copy.httpMethod == "GET" && copy.headerFields.isEmpty && copy.body == nil)
        #expect(copy.mainDocumentURL == nil && copy.timeoutInterval == 60 && copy.cachePolicy == 0)
        #expect(copy.description == "GET file:///tmp/x")
    }

    /// Apple's layout (CFNetwork's `encodeWithCoder:`): `$0` = 2, `$1` the archive list's
    /// version, `$2` its length, the list as numbered properties, the protocol properties and
    /// keyed flags. No Apple-made request archive is at hand, so this one is built to that
    /// layout; every field must survive a round trip, and the URL is read from property 0.
    @Test func appleLayoutKeptAndWrittenBack() throws {
        let archive = PropertyList.dictionary([
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": [
                "$null",
                [
                    "$class": .uid(7), "$0": 2, "$1": 9, "$2": 4,
                    "__nsurlrequest_proto_prop_obj_0": .uid(2), "__nsurlrequest_proto_prop_obj_1": .uid(4),
                    "__nsurlrequest_proto_prop_obj_2": .uid(5), "__nsurlrequest_proto_prop_obj_3": .uid(0),
                    "__nsurlrequest_proto_props": .uid(6), "startTimeoutTime": 0.0,
                    "requiresShortConnectionTimeout": false, "payloadTransmissionTimeout": 0.0,
                    "allowedProtocolTypes": 0, "attribution": 0, "boundInterfaceIdentifier": .uid(0),
                ],
                ["$class": .uid(3), "NS.base": .uid(0), "NS.relative": "https://apple.com/x"],
                ["$classname": "NSURL", "$classes": ["NSURL", "NSObject"]],
                0, 60.0,
                ["$class": .uid(8), "NS.keys": [], "NS.objects": []],
                [
                    "$classname": "NSMutableURLRequest",
                    "$classes": ["NSMutableURLRequest", "NSURLRequest", "NSObject"],
                ],
                ["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]],
            ],
        ])
        let data = try archive.data(format: .binary)
        let request = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedURLRequest.self, from: data))
        #expect(request.layout == .apple)
        #expect(request.isMutable)
        #expect(request.url?.absoluteString == "https://apple.com/x")
        #expect(request.archiveListVersion == 9)
        #expect(request.archiveList.count == 4)
        #expect(
            request.archiveList[1] == .integer(0) && request.archiveList[2] == .real(60)
                && request.archiveList[3] == .null)
        #expect(request.protocolProperties != nil)
        #expect(request.fields["$0"] == .integer(2))
        #expect(request.httpMethod == nil && request.description == "https://apple.com/x")
        let written = try KeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        #expect(try AppleFixture.rootTree(written) == AppleFixture.tree(of: 1, in: archive))
        // A length that the fields do not back reads no more than is there.
        var bogus = request
        bogus.fields["$2"] = .integer(1_000_000_000)
        #expect(bogus.archiveList.count <= 64)
    }

    /// Fields of the wrong type read as absent, never as a trap or a guess.
    @Test func oddFieldsReadAsAbsent() throws {
        let odd = ArchivedURLRequest(
            fields: [
                "NS.url": .string("https://example.com/"), "NS.httpMethod": .integer(3),
                "NS._allHTTPHeaderFields": .string("Accept: */*"), "NS.httpBody": .string("x"),
                "NS._timeoutInterval": .string("60"), "NS._cachePolicy": .real(1.5),
            ], className: "NSMutableURLRequest")
        let data = try KeyedArchiver.archivedData(withRootObject: odd, requiringSecureCoding: true)
        let request = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedURLRequest.self, from: data))
        #expect(request.url == nil && request.httpMethod == nil && request.headerFields.isEmpty)
        #expect(request.body == nil && request.timeoutInterval == nil && request.cachePolicy == nil)
        #expect(request.description == "NSMutableURLRequest")
        var apple = ArchivedURLRequest(fields: [
            "$0": .integer(2), "$2": .integer(-5), "__nsurlrequest_proto_prop_obj_0": .integer(7),
        ])
        #expect(apple.layout == .apple && apple.url == nil && apple.archiveList == [.integer(7)])
        apple.fields["$2"] = .integer(Int.max)
        #expect(apple.archiveList.count == 64)
    }

    @Test func summaries() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Self.sample(), requiringSecureCoding: true)
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        let summary = try #require(graph.summary(ofObjectAt: 1))
        #expect(summary.text == "POST https://example.com/a?b=1")
        #expect(summary.details == ["Content-Type: text/plain", "X-A: x"])
        #expect(summary.value["method"] == "POST")
        #expect(summary.value["timeout"] == 42.0)
        let name =
            "wild_webarchive_fixtures_crouton.webarchive.embedded_WebSubresources__0__WebResourceResponse.bplist"
        guard let archive = try AppleFixture.propertyList(name) else { return }
        let responses = try KeyedUnarchiver.objectGraph(from: archive.data(format: .binary))
        let uid = try #require(AppleFixture.objects(ofClass: "NSHTTPURLResponse", in: archive).first)
        let response = try #require(responses.summary(ofObjectAt: uid))
        #expect(response.text == "200 https://crouton.net/crouton.png image/png")
        #expect(response.value["status"] == 200)
        #expect(response.details.contains("Content-Length: 5182"))
    }

    #if canImport(FoundationNetworking)
    /// What Foundation on Linux writes (`FoundationNetworking.NSMutableURLRequest`) reads,
    /// securely, with every field, and is written back as the same property list.
    @Test func readsFoundationOnLinux() throws {
        var source = URLRequest(url: Self.url, cachePolicy: .returnCacheDataElseLoad, timeoutInterval: 42)
        source.httpMethod = "PUT"
        source.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        source.httpBody = Data("hello".utf8)
        source.mainDocumentURL = Self.main
        source.httpShouldHandleCookies = false
        let data = try NSKeyedArchiver.archivedData(
            withRootObject: source as NSURLRequest, requiringSecureCoding: true)
        let request = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedURLRequest.self, from: data))
        #expect(request.className == "FoundationNetworking.NSMutableURLRequest")
        #expect(request.layout == .foundationOnLinux && request.isMutable)
        #expect(request.url == Self.url && request.httpMethod == "PUT")
        #expect(request.headerFields == ["Content-Type": "text/plain"])
        #expect(request.body == Data("hello".utf8))
        // Foundation on Linux archives its own raw value (its enum's order: 3 here), not Apple's (2).
        #expect(request.timeoutInterval == 42 && request.cachePolicy == Int(source.cachePolicy.rawValue))
        #expect(request.mainDocumentURL == Self.main && request.httpShouldHandleCookies == false)
        let written = try KeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
        #expect(try AppleFixture.rootTree(written) == AppleFixture.rootTree(data))
        // Summarized under Foundation on Linux's class name too.
        let uid = try #require(
            AppleFixture.objects(
                ofClass: "FoundationNetworking.NSMutableURLRequest", in: PropertyList(from: data)
            ).first)
        #expect(
            try KeyedUnarchiver.objectGraph(from: data).summary(ofObjectAt: uid)?.text
                == "PUT https://example.com/a?b=1")
        // And Foundation reads it back.
        let back = try Self.foundationRequest(written)
        #expect(back.url == Self.url && back.httpMethod == "PUT" && back.httpBody == Data("hello".utf8))
        #expect(back.timeoutInterval == 42 && back.cachePolicy == .returnCacheDataElseLoad)
        #expect(back.httpShouldHandleCookies == false)
    }

    /// Foundation on Linux reads the requests we write (its secure `init(coder:)` traps
    /// on its own archives, so it reads without secure coding, with Apple's class names
    /// mapped to its classes).
    @Test func foundationOnLinuxReadsOurs() throws {
        for isMutable in [false, true] {
            let data = try KeyedArchiver.archivedData(
                withRootObject: Self.sample(isMutable: isMutable), requiringSecureCoding: true)
            let request = try Self.foundationRequest(data)
            #expect(request.url == Self.url)
            #expect(request.httpMethod == "POST")
            #expect(request.allHTTPHeaderFields == ["Content-Type": "text/plain", "X-A": "x"])
            #expect(request.httpBody == Data("hello".utf8))
            #expect(request.timeoutInterval == 42)
            #expect(request.cachePolicy == .returnCacheDataElseLoad)
            #expect(request.mainDocumentURL == Self.main)
            #expect(request.httpShouldHandleCookies)
        }
    }

    static func foundationRequest(_ data: Data) throws -> NSURLRequest {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(NSURLRequest.self, forClassName: "NSURLRequest")
        unarchiver.setClass(NSMutableURLRequest.self, forClassName: "NSMutableURLRequest")
        guard let request = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSURLRequest
        else {
            throw AppleFixture.Failure("Foundation did not read the request")
        }
        return request
    }
    #endif
}
