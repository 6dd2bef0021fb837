import Foundation
@_spi(Fuzzing) import KeyedArchive
import Testing

/// Replays every file in `Tests/KeyedArchiveTests/Resources/FuzzRegressions/` (fuzzer
/// findings and hand-made hostile inputs, see its README) through every reader, the
/// unarchiver in its secure, insecure and generic modes, and a write-and-read-back: each
/// must give a value or a ``KeyedArchiveError``, never a crash or another error. The XML
/// reader's ways through each file must agree, as `FuzzXML` checks, and every conversion
/// that builds no tree must write what the tree's way writes, as `FuzzStreamed` checks.
@Suite("Hardening: fuzz regressions")
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Resources/FuzzRegressions")

    static var files: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
    }

    @Test func theFolderHoldsRegressions() {
        #expect(Self.files.count >= 10, "no regression files in \(Self.folder.path)")
    }

    @Test(arguments: files)
    func replay(_ name: String) throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(name))
        for format in PropertyListFormat.allCases {
            Self.expectValueOrError("\(name) as \(format)") {
                let value = try PropertyList(from: data, format: format)
                _ = value.description
                _ = try? value.jsonData()
                // What was read writes and reads back (XML may refuse an unwritable date).
                for output in [PropertyListFormat.binary, .xml] {
                    let written: Data
                    do {
                        written = try value.data(format: output)
                    } catch let error as KeyedArchiveError where error.code == .invalidValue {
                        continue
                    }
                    do {
                        _ = try PropertyList(from: written, format: output)
                    } catch {
                        Issue.record(
                            "\(name) as \(format): its \(output) rendering does not read back: \(error)")
                    }
                }
            }
        }
        if let disagreement = XMLReadingPaths.disagreement(in: data) {
            Issue.record("\(name): the XML readings differ:\n\(disagreement)")
        }
        if let disagreement = StreamedConversionPaths.disagreement(in: data) {
            Issue.record("\(name): a streamed conversion differs from the tree's:\n\(disagreement)")
        }
        Self.expectValueOrError("\(name) secure") {
            _ = try KeyedUnarchiver.unarchivedObject(ofClasses: [Creature.self, Point.self], from: data)
        }
        Self.expectValueOrError("\(name) insecure") {
            let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            unarchiver.options.decodesUnknownClassesGenerically = true
            _ = try unarchiver.decodeObject(forKey: KeyedArchiver.rootObjectKey)
        }
        Self.expectValueOrError("\(name) graph") {
            _ = try KeyedUnarchiver.objectGraph(from: data).description
        }
    }

    static func expectValueOrError(_ context: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch is KeyedArchiveError {
            // An error is a fine answer to hostile input.
        } catch {
            Issue.record("\(context): threw \(type(of: error)), not KeyedArchiveError: \(error)")
        }
    }
}
