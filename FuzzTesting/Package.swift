// swift-tools-version:6.0
// libFuzzer targets for KeyedArchive. Build and run with `./fuzz.sh TARGET SECONDS`
// (see Documentation/Security.md); `swift build -c release --sanitize=fuzzer` builds them all.
// fuzz.sh adds `-Xswiftc -assert-config -Xswiftc Debug`, so that the library's `assert`s hold
// in the fuzzed builds too (a flag set here with `unsafeFlags` would reach only these targets).
import PackageDescription

let package = Package(
    name: "KeyedArchiveFuzzTesting",
    dependencies: [.package(name: "KeyedArchive", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "KeyedArchive", package: "KeyedArchive")]
        ),
        .executableTarget(name: "FuzzBinary", dependencies: ["FuzzSupport"]),
        .executableTarget(
            name: "FuzzXML",
            dependencies: ["FuzzSupport", .product(name: "KeyedArchive", package: "KeyedArchive")]),
        .executableTarget(name: "FuzzOpenStep", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzUnarchiver", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzTypedStream", dependencies: ["FuzzSupport"]),
        // The one-pass iMessage body reader against the general typedstream reader.
        .executableTarget(
            name: "FuzzIMessageBody",
            dependencies: ["FuzzSupport", .product(name: "KeyedArchive", package: "KeyedArchive")]),
        .executableTarget(name: "FuzzRoundTrip", dependencies: ["FuzzSupport"]),
        .executableTarget(
            name: "FuzzStreamed",
            dependencies: ["FuzzSupport", .product(name: "KeyedArchive", package: "KeyedArchive")]),
        // The SQLite reader (a database, optionally with its WAL after an `@WAL@` marker).
        .executableTarget(
            name: "FuzzSQLite",
            dependencies: ["FuzzSupport", .product(name: "SQLiteFormat", package: "KeyedArchive")]),
        .executableTarget(
            name: "FuzzCodable",
            dependencies: ["FuzzSupport", .product(name: "KeyedArchive", package: "KeyedArchive")]),
    ],
    swiftLanguageModes: [.v6]
)
