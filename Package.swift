// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KeyedArchive",
    products: [
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        // Conversions to and from full Foundation's classes (NSAttributedString, …).
        .library(name: "KeyedArchiveFoundation", targets: ["KeyedArchiveFoundation"]),
        .executable(name: "keyed-archive", targets: ["KeyedArchiveTool"]),
        .executable(name: "benchmarks", targets: ["Benchmarks"]),
        .executable(name: "scary-creatures", targets: ["ScaryCreatures"]),
    ],
    targets: [
        .target(
            name: "KeyedArchive",
            path: "Sources/KeyedArchive"
        ),
        .target(
            name: "KeyedArchiveFoundation",
            dependencies: ["KeyedArchive"],
            path: "Sources/KeyedArchiveFoundation"
        ),
        .executableTarget(
            name: "KeyedArchiveTool",
            dependencies: ["KeyedArchive"],
            path: "Sources/KeyedArchiveTool"
        ),
        .executableTarget(
            name: "Benchmarks",
            dependencies: ["KeyedArchive"],
            path: "Benchmarks",
            // The peers benchmark's scripts and harnesses, the pytypedstream comparison, and
            // the client package (a package of its own).
            exclude: ["peers", "typedstream-vs-pytypedstream.py", "ClientPackage"]
        ),
        .executableTarget(
            name: "ScaryCreatures",
            dependencies: ["KeyedArchive"],
            path: "Examples/ScaryCreatures"
        ),
        .testTarget(
            name: "ScaryCreaturesTests",
            dependencies: ["ScaryCreatures", "KeyedArchive"],
            path: "Tests/ScaryCreaturesTests"
        ),
        // A child process for the hardening tests (durable writes killed mid-way, memory caps).
        .executableTarget(
            name: "HardeningProbe",
            dependencies: ["KeyedArchive"],
            path: "Tests/HardeningProbe"
        ),
        .testTarget(
            name: "KeyedArchiveTests",
            dependencies: ["KeyedArchive", "KeyedArchiveFoundation", "HardeningProbe"],
            path: "Tests/KeyedArchiveTests",
            // Read through #filePath by FuzzRegressionTests.
            exclude: ["Resources"]
        ),
        .testTarget(
            name: "KeyedArchiveToolTests",
            dependencies: ["KeyedArchiveTool", "KeyedArchive"],
            path: "Tests/KeyedArchiveToolTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
