import Foundation
import KeyedArchive
import Testing

@testable import KeyedArchiveTool

/// `-convert objc -header`: the header `plutil` writes beside the `.m`, and the `#import`
/// of it that starts the source.
@Suite struct ObjCHeaderTests {
    static let creature: PropertyList = [
        "Title": "Potato Bug", "Legs": 14, "Tags": ["small", "grey"], "Harmless": true,
    ]

    static let expectedHeader = """
        #import <Foundation/Foundation.h>

        /// Generated from creature.plist
        __attribute__((visibility("hidden")))
        extern NSDictionary * const creature;

        """

    static let expectedSource = """
        #import "creature.h"

        /// Generated from creature.plist
        __attribute__((visibility("hidden")))
        NSDictionary * const creature = @{
            @"Harmless" : @YES,
            @"Legs" : @14,
            @"Tags" : @[
                @"small",
                @"grey",
            ],
            @"Title" : @"Potato Bug",
        };

        """

    @Test func headerBesideTheSource() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(try Self.creature.data(format: .binary), to: "creature.plist")
        let run = ToolRun(["-convert", "objc", "-header", input])
        #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
        #expect(run.output.isEmpty)
        #expect(try directory.contents() == ["creature.h", "creature.m", "creature.plist"])
        #expect(String(decoding: try directory.read("creature.h"), as: UTF8.self) == Self.expectedHeader)
        #expect(String(decoding: try directory.read("creature.m"), as: UTF8.self) == Self.expectedSource)
    }

    @Test func headerBesideTheOutputPath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(try Self.creature.data(format: .xml), to: "creature.plist")
        let run = ToolRun(["-convert", "objc", "-o", directory.path("Generated.m"), "-header", input])
        #expect(run.status == 0, "\(run.error)")
        // Named after the output; the constant and the comment after the input, as plutil.
        let source = String(decoding: try directory.read("Generated.m"), as: UTF8.self)
        #expect(source.hasPrefix("#import \"Generated.h\"\n\n/// Generated from creature.plist\n"))
        #expect(String(decoding: try directory.read("Generated.h"), as: UTF8.self) == Self.expectedHeader)
    }

    /// Without `-header`, the source is as before: no `#import` (plutil's imports a header
    /// even when it writes none, which does not compile on its own).
    @Test func noHeaderNoImport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(try Self.creature.data(format: .xml), to: "creature.plist")
        let run = ToolRun(["-convert", "objc", input])
        #expect(run.status == 0)
        #expect(try directory.contents() == ["creature.m", "creature.plist"])
        let source = String(decoding: try directory.read("creature.m"), as: UTF8.self)
        #expect(source == String(Self.expectedSource.dropFirst("#import \"creature.h\"\n\n".count)))
    }

    /// As plutil: standard output gets the source alone, and no header is written.
    @Test func standardOutputGetsNoHeader() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(try Self.creature.data(format: .xml), to: "creature.plist")
        let run = ToolRun(["-convert", "objc", "-header", "-o", "-", input])
        #expect(run.status == 0)
        #expect(run.outputText == String(Self.expectedSource.dropFirst("#import \"creature.h\"\n\n".count)))
        #expect(try directory.contents() == ["creature.plist"])
    }

    @Test(arguments: [
        ["-convert", "swift", "-header", "a.plist"], ["-convert", "xml1", "-header", "a.plist"],
        ["-lint", "-header", "a.plist"], ["-header", "a.plist"],
    ])
    func headerOnlyWithObjC(arguments: [String]) {
        let run = ToolRun(arguments)
        #expect(run.status == 64)
        #expect(run.errorLines.first == "keyed-archive: -header is only valid with -convert objc")
    }

    @Test func unrepresentableWritesNeither() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let value: PropertyList = ["n": 1, "d": .data(Data([1]))]
        let input = try directory.write(try value.data(format: .xml), to: "x.plist")
        let run = ToolRun(["-convert", "objc", "-header", input])
        #expect(run.status == 1)
        #expect(run.error.contains("cannot be represented in Obj-C literal syntax"))
        #expect(try directory.contents() == ["x.plist"])
    }

    @Test func headerNameThatAnImportCannotHold() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write(try Self.creature.data(format: .xml), to: "q\"uote.plist")
        let run = ToolRun(["-convert", "objc", "-header", input])
        #expect(run.status == 1)
        #expect(run.errorLines == ["\(input): cannot name the header q\"uote.h in an #import directive"])
    }

    /// Where a C compiler is installed: the header and the source compile together as
    /// Objective-C++ (which, unlike upstream clang's Objective-C, accepts collection literals
    /// at file scope; Apple's clang accepts them in Objective-C too) against a stub of the
    /// Foundation classes, and a source that disagrees with its header does not.
    @Test func headerAndSourceCompileTogether() throws {
        guard let clang = Self.clang() else { return }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(
            atPath: directory.path("Foundation"), withIntermediateDirectories: true)
        try directory.write(Self.foundationStub, to: "Foundation/Foundation.h")
        let value: PropertyList = [
            "Title": "Potato Bug", "Legs": 14, "Rating": 3.5, "Harmless": false,
            "Nested": ["a": [1, -2, "x"], "b": [:]], "Big": .integer(PropertyListInteger(UInt64.max)),
            "Small": .integer(PropertyListInteger(Int64.min)),
        ]
        let input = try directory.write(try value.data(format: .binary), to: "creature.plist")
        #expect(ToolRun(["-convert", "objc", "-header", input]).status == 0)
        #expect(try Self.compile(clang, directory, "creature.m") == 0)
        let source = String(decoding: try directory.read("creature.m"), as: UTF8.self)
        #expect(source.contains("@\"Big\" : @18446744073709551615ULL,\n"))
        #expect(source.contains("@\"Small\" : @(-9223372036854775807LL - 1),\n"))
        try directory.write(
            source.replacingOccurrences(of: "NSDictionary * const", with: "NSArray * const"), to: "mismatch.m"
        )
        #expect(try Self.compile(clang, directory, "mismatch.m") != 0, "a mismatch must fail to compile")
    }

    static let foundationStub = """
        #define YES __objc_yes
        #define NO __objc_no
        @interface NSObject
        @end
        @interface NSString : NSObject
        @end
        @interface NSNumber : NSObject
        + (NSNumber *)numberWithInt:(int)value;
        + (NSNumber *)numberWithLongLong:(long long)value;
        + (NSNumber *)numberWithUnsignedLongLong:(unsigned long long)value;
        + (NSNumber *)numberWithDouble:(double)value;
        + (NSNumber *)numberWithBool:(signed char)value;
        @end
        @interface NSArray : NSObject
        + (id)arrayWithObjects:(const id[])objects count:(unsigned long)count;
        @end
        @interface NSDictionary : NSObject
        + (id)dictionaryWithObjects:(const id[])objects forKeys:(const id[])keys count:(unsigned long)count;
        @end

        """

    static func clang() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map(String.init) + ["/usr/bin", "/opt/swift/usr/bin"])
            .map { $0 + "/clang" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func compile(_ clang: String, _ directory: TemporaryDirectory, _ file: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: clang)
        process.arguments = [
            "-x", "objective-c++", "-fsyntax-only", "-Werror", "-I", directory.url.path, directory.path(file),
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
