import Foundation

/// The creatures on disk: a `PrivateDocuments` folder of `N.scarycreature` folders.
///
/// As in the tutorial, loading lists the folders and creates a ``ScaryCreatureDoc`` for
/// each without reading any of them, and a new creature goes into the folder numbered
/// one more than the highest in use.
struct ScaryCreatureDatabase {
    static let folderExtension = "scarycreature"

    /// The folder that holds `PrivateDocuments`.
    let root: URL

    init(root: URL) {
        self.root = root
    }

    /// `root/PrivateDocuments`, created if needed.
    func privateDocumentsDirectory() throws -> URL {
        let url = root.appendingPathComponent("PrivateDocuments", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw ScaryCreatureError("cannot create \(url.path): \(error.localizedDescription)")
        }
        return url
    }

    /// Every `N.scarycreature` folder as a document, ordered by number; nothing is read.
    func loadScaryCreatureDocs() throws -> [ScaryCreatureDoc] {
        let folder = try privateDocumentsDirectory()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw ScaryCreatureError("cannot list \(folder.path): \(error.localizedDescription)")
        }
        return names.compactMap { name -> (Int, ScaryCreatureDoc)? in
            let url = folder.appendingPathComponent(name, isDirectory: true)
            guard url.pathExtension == Self.folderExtension,
                let number = Int(url.deletingPathExtension().lastPathComponent)
            else { return nil }
            return (number, ScaryCreatureDoc(docPath: url))
        }
        .sorted { $0.0 < $1.0 }
        .map(\.1)
    }

    /// The folder for a new creature: the highest number in use plus one (1 for the
    /// first), so numbers are never reused while a higher one exists.
    func nextScaryCreatureDocPath() throws -> URL {
        let highest = try loadScaryCreatureDocs().compactMap(\.number).max() ?? 0
        // A folder named `9223372036854775807.scarycreature` must not crash the app.
        let (next, overflow) = highest.addingReportingOverflow(1)
        guard !overflow else {
            throw ScaryCreatureError(
                "no creature number is left after \(highest).\(Self.folderExtension); rename that folder")
        }
        return try privateDocumentsDirectory()
            .appendingPathComponent("\(next).\(Self.folderExtension)", isDirectory: true)
    }

    /// The creature numbered `number`, if its folder exists.
    func doc(number: Int) throws -> ScaryCreatureDoc? {
        try loadScaryCreatureDocs().first { $0.number == number }
    }

    /// The default location: `$SCARY_CREATURES_DATABASE` if set, else the per-user data
    /// folder — `$XDG_DATA_HOME/ScaryCreatures` (or `~/.local/share/ScaryCreatures`) on
    /// Linux, `~/Documents/ScaryCreatures` on Apple platforms, as the app kept its
    /// database in Documents.
    static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let path = environment["SCARY_CREATURES_DATABASE"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        #if canImport(Darwin)
        let documents =
            FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent("Documents")
        return documents.appendingPathComponent("ScaryCreatures", isDirectory: true)
        #else
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return URL(fileURLWithPath: dataHome, isDirectory: true).appendingPathComponent("ScaryCreatures")
        }
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share/ScaryCreatures", isDirectory: true)
        #endif
    }

    /// The tutorial's sample creatures, created on first run.
    static let samples: [(title: String, rating: Float)] = [
        ("Potato Bug", 4), ("House Centipede", 3), ("Wolf Spider", 5), ("Lady Bug", 1),
    ]
}
