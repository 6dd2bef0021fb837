// swift-tools-version:6.0
// The CPython extension `keyedarchive._keyedarchive`: a package of its own (as FuzzTesting/ is),
// so that the root manifest never needs Python's headers. `setup.py` builds it with
// `swift build -c release` and passes the headers' folder (`python3-config --includes`) with
// `-Xcc -I…`; see README.md.
import PackageDescription

let package = Package(
    name: "KeyedArchivePython",
    products: [
        // The shared object Python loads, `lib_keyedarchive.so`, copied by setup.py to
        // `keyedarchive/_keyedarchive.abi3.so`.
        .library(name: "_keyedarchive", type: .dynamic, targets: ["KeyedArchivePython"])
    ],
    dependencies: [.package(name: "KeyedArchive", path: "../..")],
    targets: [
        // The C API through the limited API (abi3, Python 3.11 and later): the few macros
        // Swift cannot import as functions, wrapped once.
        .target(name: "CPythonShim", path: "Sources/CPythonShim"),
        .target(
            name: "KeyedArchivePython",
            dependencies: [
                "CPythonShim",
                .product(name: "KeyedArchive", package: "KeyedArchive"),
                .product(name: "SQLiteFormat", package: "KeyedArchive"),
            ],
            path: "Sources/KeyedArchivePython",
            linkerSettings: [
                // The Swift runtime and FoundationEssentials inside the extension: the
                // installed wheel needs no Swift toolchain.
                // FoundationEssentials' own static dependencies are not pulled in by
                // `-static-stdlib` for a shared object: named here.
                .unsafeFlags(
                    [
                        "-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims",
                        "-lswiftSynchronization",
                    ], .when(platforms: [.linux]))
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
