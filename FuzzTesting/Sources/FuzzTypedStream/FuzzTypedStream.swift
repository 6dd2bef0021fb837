import Foundation
import FuzzSupport
import KeyedArchive

/// A typedstream user type: an object whose class is `FuzzMarker`, read field by field.
struct FuzzMarker: TypedStreamDecodable {
    static var typedStreamClassName: String { "FuzzMarker" }
    let values: [Any?]

    init(typedStreamCoder coder: TypedStreamUnarchiver) throws {
        var values: [Any?] = []
        while let encoding = coder.nextEncoding {
            switch encoding {
            case "@": values.append(try coder.decodeObject())
            // First an old binary property list (`i`, `[Nc]`), as NSFont stores its name.
            case "i" where values.isEmpty: values.append(try coder.decodePropertyList())
            case "i", "q", "s", "c": values.append(try coder.decodeInteger())
            case "d", "f": values.append(try coder.decodeDouble())
            default: values.append(try coder.decodeNextGroup())
            }
        }
        self.values = values
    }
}

/// libFuzzer entry point: the typedstream reader through its generic graph, the untyped
/// decode, a secure decode with an allowed set, a user type, and the iMessage body view.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypedStream(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzInput.data(start, count)
    _ = TypedStreamUnarchiver.isTypedStream(data)
    do {
        let graph = try TypedStreamUnarchiver.objectGraph(from: data)
        _ = graph.description.utf8.count
        for node in graph.nodes {
            if case .object(let object) = node { _ = graph.classChain(of: object).count }
        }
        // As the tool shows it: the keyed graph, with colours and fonts summarized.
        let keyed = graph.archivedObjectGraph()
        for index in keyed.nodes.indices.prefix(64) { _ = keyed.summary(ofObjectAt: index) }
        // Written back: what was read is writable, and what is written reads.
        do {
            _ = try TypedStreamUnarchiver.objectGraph(from: try TypedStreamArchiver.archivedData(of: graph))
        } catch {
            FuzzInput.requirePackageError(error, "archivedData(of:) and back")
        }
    } catch {
        FuzzInput.requirePackageError(error, "objectGraph(from:)")
    }
    do {
        let value = try TypedStreamUnarchiver.unarchivedObject(from: data)
        // Paragraph styles and attributed strings written back from what was read (in the
        // layout read, extra groups and all), and read again.
        if value is ArchivedParagraphStyle || value is ArchivedAttributedString {
            do {
                let written = try TypedStreamArchiver.archivedData(withRootObject: value)
                _ = try TypedStreamUnarchiver.unarchivedObject(from: written)
            } catch {
                FuzzInput.requirePackageError(error, "archivedData(withRootObject:) of a style or string")
            }
        }
    } catch {
        FuzzInput.requirePackageError(error, "unarchivedObject(from:)")
    }
    do {
        _ = try TypedStreamUnarchiver.unarchivedObject(ofClasses: [FuzzMarker.self], from: data)
    } catch {
        FuzzInput.requirePackageError(error, "unarchivedObject(ofClasses:)")
    }
    do {
        let list = try TypedStreamColorList(typedStream: data)
        _ = list.entries.map { $0.color?.description ?? $0.key }
    } catch {
        FuzzInput.requirePackageError(error, "TypedStreamColorList(typedStream:)")
    }
    do {
        let nib = try TypedStreamNib(typedStream: data)
        _ = (nib.objects.map(\.className), nib.connections.map(\.label))
    } catch {
        FuzzInput.requirePackageError(error, "TypedStreamNib(typedStream:)")
    }
    do {
        let body = try IMessageBody(attributedBody: data)
        for run in body.runs {
            _ = (run.messagePart, run.mention, run.link, run.attachmentGUID, run.styles, run.textEffectName)
        }
        _ = body.description.utf8.count
    } catch {
        FuzzInput.requirePackageError(error, "IMessageBody(attributedBody:)")
    }
    do {
        let unarchiver = try TypedStreamUnarchiver(forReadingFrom: data)
        // Values of the graph decoded one by one, as a nib reader walks its objects.
        for node in unarchiver.objectGraph.nodes.prefix(256) {
            guard case .object(let object) = node else { continue }
            for group in object.groups.prefix(8) {
                for value in group.values.prefix(8) {
                    do {
                        _ = try unarchiver.value(of: value)
                        _ = try unarchiver.value(of: value, as: String.self)
                    } catch {
                        FuzzInput.requirePackageError(error, "value(of:)")
                    }
                }
            }
        }
        unarchiver.setClass(FuzzMarker.self, forClassName: "NSAttributedString")
        unarchiver.setClass(FuzzMarker.self, forClassName: "ROI")
        while !unarchiver.isAtEnd {
            do {
                _ = try unarchiver.decodeObject(of: FuzzMarker.self)
            } catch {
                FuzzInput.requirePackageError(error, "decodeObject(of: FuzzMarker)")
                _ = try? unarchiver.decodeNextGroup()
            }
        }
    } catch {
        FuzzInput.requirePackageError(error, "TypedStreamUnarchiver(forReadingFrom:)")
    }
    return 0
}
