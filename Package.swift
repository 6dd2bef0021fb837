// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "KeyedArchive",
    products: [
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .executable(name: "keyed-archive", targets: ["KeyedArchiveTool"]),
        .executable(name: "benchmarks", targets: ["Benchmarks"]),
    ],
    targets: [
        .target(
            name: "KeyedArchive",
            path: "Sources/KeyedArchive"
        ),
        .executableTarget(
            name: "KeyedArchiveTool",
            dependencies: ["KeyedArchive"],
            path: "Sources/KeyedArchiveTool"
        ),
        .executableTarget(
            name: "Benchmarks",
            dependencies: ["KeyedArchive"],
            path: "Benchmarks"
        ),
        .testTarget(
            name: "KeyedArchiveTests",
            dependencies: ["KeyedArchive"],
            path: "Tests/KeyedArchiveTests"
        ),
        .testTarget(
            name: "KeyedArchiveToolTests",
            dependencies: ["KeyedArchiveTool", "KeyedArchive"],
            path: "Tests/KeyedArchiveToolTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
