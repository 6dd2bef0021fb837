// swift-tools-version:6.0
// A client of KeyedArchive that uses only the README's API: see Sources/IdiomaticClient.
// `swift run -c release idiomatic-client` (from this folder).
import PackageDescription

let package = Package(
    name: "ClientPackage",
    products: [.executable(name: "idiomatic-client", targets: ["IdiomaticClient"])],
    dependencies: [.package(name: "KeyedArchive", path: "../..")],
    targets: [
        .executableTarget(
            name: "IdiomaticClient",
            dependencies: [.product(name: "KeyedArchive", package: "KeyedArchive")],
            path: "Sources/IdiomaticClient"
        )
    ],
    swiftLanguageModes: [.v6]
)
