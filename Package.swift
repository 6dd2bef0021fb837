// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KeyedArchive",
    products: [
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        // The property-list formats alone (binary, XML, OpenStep, JSON), without archives.
        .library(name: "PropertyListFormats", targets: ["PropertyListFormats"]),
        // Conversions to and from full Foundation's classes (NSAttributedString, …).
        .library(name: "KeyedArchiveFoundation", targets: ["KeyedArchiveFoundation"]),
        // A read-only reader of SQLite database files (with their WAL and rollback journal),
        // where iOS and macOS keep most of their archives.
        .library(name: "SQLiteFormat", targets: ["SQLiteFormat"]),
        .executable(name: "keyed-archive", targets: ["KeyedArchiveCommand"]),
        // The benchmarks and the example are executable targets of this package, not products:
        // packages that depend on KeyedArchive neither see nor build them. `swift run NAME`
        // and `swift build --product NAME` take a root package's executable target by its
        // name, so the targets carry the commands' names (their modules are `benchmarks`
        // and `scary_creatures`).
    ],
    targets: [
        // The modules follow the layers; each one knows only those below it:
        //
        //   KeyedArchiveSupport   containers, text, unsafe primitives (internal to the package)
        //   PropertyListFormats   the property-list formats (a product of its own)
        //   KeyedArchiving        KeyedArchiver/KeyedUnarchiver, the coding protocols, the class
        //                         catalogue, standard types, the Codable bridge, the object
        //                         graph, durable files
        //   ArchivedAppleClasses  Apple's classes as typed values (attributed strings, colours, …)
        //   TypedStreamFormat     typedstreams (NSArchiver): reader, unarchiver, archiver, iMessage
        //   SQLiteFormat          a read-only SQLite file reader (depends on nothing)
        //   KeyedArchive          the umbrella: re-exports all of the above
        //
        // Documentation/Internals.md says what crosses a boundary and how.
        .target(
            name: "KeyedArchiveSupport",
            path: "Sources/KeyedArchiveSupport"
        ),
        .target(
            name: "PropertyListFormats",
            dependencies: ["KeyedArchiveSupport"],
            path: "Sources/PropertyListFormats"
        ),
        .target(
            name: "KeyedArchiving",
            dependencies: ["PropertyListFormats", "KeyedArchiveSupport"],
            path: "Sources/KeyedArchiving"
        ),
        .target(
            name: "ArchivedAppleClasses",
            dependencies: ["KeyedArchiving", "PropertyListFormats", "KeyedArchiveSupport"],
            path: "Sources/ArchivedAppleClasses"
        ),
        .target(
            name: "TypedStreamFormat",
            dependencies: ["ArchivedAppleClasses", "KeyedArchiving", "PropertyListFormats", "KeyedArchiveSupport"],
            path: "Sources/TypedStreamFormat"
        ),
        .target(
            name: "KeyedArchive",
            dependencies: [
                "TypedStreamFormat", "ArchivedAppleClasses", "KeyedArchiving", "PropertyListFormats",
                "KeyedArchiveSupport", "SQLiteFormat",
            ],
            path: "Sources/KeyedArchive"
        ),
        // Depends on nothing in this package: the file format alone, no libsqlite3.
        .target(
            name: "SQLiteFormat",
            path: "Sources/SQLiteFormat"
        ),
        .target(
            name: "KeyedArchiveFoundation",
            dependencies: ["KeyedArchive"],
            path: "Sources/KeyedArchiveFoundation"
        ),
        // The tool's code, a module of its own so that tests can import it.
        .target(
            name: "KeyedArchiveTool",
            dependencies: ["KeyedArchive", "SQLiteFormat"],
            path: "Sources/KeyedArchiveTool"
        ),
        // The `keyed-archive` executable: main.swift alone. A release build on Linux links
        // it as one static executable (Swift runtime, FoundationEssentials and the C
        // libraries inside): nothing for the dynamic loader to do, so it starts in about
        // 1 ms within 6.3 MB (3–4 ms and 13.4 MB linked dynamically; measured in
        // Documentation/Performance.md, whole processes). The flags stay on
        // this target: no library product carries them, so packages that depend on
        // KeyedArchive are unaffected, and tests link the KeyedArchiveTool module as usual.
        .executableTarget(
            name: "KeyedArchiveCommand",
            dependencies: ["KeyedArchiveTool"],
            path: "Sources/KeyedArchiveCommand",
            swiftSettings: [
                .unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))
            ],
            linkerSettings: [
                .unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))
            ]
        ),
        .executableTarget(
            name: "benchmarks",
            dependencies: ["KeyedArchive"],
            path: "Benchmarks",
            // The peers benchmark's scripts and harnesses, the pytypedstream comparison, and
            // the client package (a package of its own).
            // The SQLite benchmark's scripts (its runner, generator and Python reference) too.
            exclude: [
                "peers", "typedstream-vs-pytypedstream.py", "ClientPackage", "count-instructions.sh", "sqlite",
                // The Python package's benchmark (Bindings/Python).
                "python",
            ]
        ),
        .executableTarget(
            name: "scary-creatures",
            dependencies: ["KeyedArchive"],
            path: "Examples/ScaryCreatures"
        ),
        // What the test targets and HardeningProbe share: one seeded generator, one binary
        // property-list byte builder, hand-made typedstreams, and the shared fixtures
        // (`../shared/fixtures`). A plain target, not a product: packages that depend on
        // KeyedArchive neither see nor build it.
        .target(
            name: "TestSupport",
            dependencies: ["KeyedArchive"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "ScaryCreaturesTests",
            dependencies: ["scary-creatures", "KeyedArchive"],
            path: "Tests/ScaryCreaturesTests"
        ),
        // A child process for the hardening tests (durable writes killed mid-way, memory caps,
        // the tool's commands on hostile inputs).
        .executableTarget(
            name: "HardeningProbe",
            dependencies: ["KeyedArchive", "KeyedArchiveTool", "TestSupport"],
            path: "Tests/HardeningProbe"
        ),
        .testTarget(
            name: "KeyedArchiveTests",
            dependencies: [
                "KeyedArchive", "KeyedArchiveFoundation", "HardeningProbe", "PropertyListFormats",
                "KeyedArchiveSupport", "TestSupport",
            ],
            path: "Tests/KeyedArchiveTests",
            // Read through #filePath by FuzzRegressionTests.
            exclude: ["Resources"]
        ),
        // A client of the property-list product alone: its tests import nothing else.
        .testTarget(
            name: "PropertyListFormatsTests",
            dependencies: ["PropertyListFormats"],
            path: "Tests/PropertyListFormatsTests"
        ),
        .testTarget(
            name: "SQLiteFormatTests",
            dependencies: ["SQLiteFormat"],
            path: "Tests/SQLiteFormatTests",
            // The Python scripts that make the reference databases at test time.
            exclude: ["Scripts"]
        ),
        .testTarget(
            name: "KeyedArchiveToolTests",
            dependencies: ["KeyedArchiveTool", "KeyedArchive", "TestSupport"],
            path: "Tests/KeyedArchiveToolTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
