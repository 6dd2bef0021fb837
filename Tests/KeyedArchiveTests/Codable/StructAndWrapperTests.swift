import Foundation
import KeyedArchive
import Testing

final class CPUCore: SecureKeyedCoding {
    let number: Int
    init(number: Int) { self.number = number }
    func encode(with coder: KeyedArchiver) { coder.encode(number, forKey: "number") }
    init(coder: KeyedUnarchiver) throws { number = try coder.decodeInteger(forKey: "number") }
}

/// A struct holding class instances that are shared elsewhere in the graph.
struct CPU: SecureKeyedCoding {
    var model: String
    var cores: [CPUCore]
    func encode(with coder: KeyedArchiver) {
        coder.encode(model, forKey: "model")
        coder.encode(cores, forKey: "cores")
    }
    init(model: String, cores: [CPUCore]) {
        self.model = model
        self.cores = cores
    }
    init(coder: KeyedUnarchiver) throws {
        model = try coder.decodeObject(of: String.self, forKey: "model") ?? ""
        cores = try coder.decodeArrayOfObjects(ofClass: CPUCore.self, forKey: "cores") ?? []
    }
}

final class Computer: SecureKeyedCoding {
    var cpu: CPU
    var spareCPU: CPU
    var busiestCore: CPUCore
    init(cpu: CPU, busiestCore: CPUCore) {
        self.cpu = cpu
        self.spareCPU = cpu
        self.busiestCore = busiestCore
    }
    func encode(with coder: KeyedArchiver) {
        coder.encode(cpu, forKey: "cpu")
        coder.encode(spareCPU, forKey: "spareCPU")
        coder.encode(busiestCore, forKey: "busiestCore")
    }
    init(coder: KeyedUnarchiver) throws {
        guard let cpu = try coder.decodeObject(of: CPU.self, forKey: "cpu"),
            let spare = try coder.decodeObject(of: CPU.self, forKey: "spareCPU"),
            let busiest = try coder.decodeObject(of: CPUCore.self, forKey: "busiestCore")
        else { throw KeyedArchiveError(.invalidArchive, "a Computer without its CPU") }
        self.cpu = cpu
        spareCPU = spare
        busiestCore = busiest
    }
}

struct Location: Codable, Equatable {
    var latitude: Double
    var longitude: Double
    var name: String
}

enum Mood: String, Codable { case calm, grumpy }

@Suite("Structs and wrappers")
struct StructAndWrapperTests {
    @Test func computerKeepsSharedCoresShared() throws {
        let cores = (0..<4).map { CPUCore(number: $0) }
        let computer = Computer(cpu: CPU(model: "M9", cores: cores), busiestCore: cores[2])
        let data = try KeyedArchiver.archivedData(withRootObject: computer, requiringSecureCoding: true)
        let decoded = try #require(try KeyedUnarchiver.unarchivedObject(ofClass: Computer.self, from: data))
        #expect(decoded.cpu.model == "M9")
        #expect(decoded.cpu.cores.map(\.number) == [0, 1, 2, 3])
        #expect(decoded.busiestCore === decoded.cpu.cores[2])
        #expect(decoded.spareCPU.cores[0] === decoded.cpu.cores[0])
        // The CPU struct is an object of its own class; equal struct values share one entry.
        let graph = try KeyedUnarchiver.objectGraph(from: data)
        let cpuObjects = graph.nodes.filter {
            if case .object(let object) = $0 { return object.className == CPU.archivedClassName }
            return false
        }
        #expect(cpuObjects.count == 1, "\(graph)")
        let coreObjects = graph.nodes.filter {
            if case .object(let object) = $0 { return object.className == CPUCore.archivedClassName }
            return false
        }
        #expect(coreObjects.count == 4)
    }

    @Test func archivedCodableUsesChosenName() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.setClassName("Location", for: ArchivedCodable<Location>.self)
        let location = Location(latitude: 48.1, longitude: 11.6, name: "Munich")
        archiver.encode(ArchivedCodable(location), forKey: "root")
        archiver.encode(ArchivedCodable(Mood.grumpy), forKey: "mood")
        archiver.encode(ArchivedCodable([1, 2, 3]), forKey: "numbers")
        let data = try archiver.finishedData()

        let graph = try KeyedUnarchiver.objectGraph(from: data)
        guard case .reference(let uid)? = graph.root, let object = graph.object(at: uid) else {
            Issue.record("no root object: \(graph)")
            return
        }
        #expect(object.className == "Location")
        #expect(object.fields.first { $0.key == "latitude" }?.value == .real(48.1))

        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(ArchivedCodable<Location>.self, forClassName: "Location")
        #expect(
            try unarchiver.decodeObject(of: ArchivedCodable<Location>.self, forKey: "root")?.value == location
        )
        #expect(try unarchiver.decodeObject(of: ArchivedCodable<Mood>.self, forKey: "mood")?.value == .grumpy)
        #expect(
            try unarchiver.decodeObject(of: ArchivedCodable<[Int]>.self, forKey: "numbers")?.value == [
                1, 2, 3,
            ])
    }

    @Test func archivedCodableErrorsAreArchiveErrors() throws {
        let archiver = KeyedArchiver(requiringSecureCoding: true)
        archiver.encode(ArchivedCodable(Location(latitude: 1, longitude: 2, name: "x")), forKey: "root")
        let data = try archiver.finishedData()
        struct Other: Codable { var altitude: Double }
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(
            ArchivedCodable<Other>.self, forClassName: ArchivedCodable<Location>.archivedClassName)
        #expect {
            _ = try unarchiver.decodeObject(of: ArchivedCodable<Other>.self, forKey: "root")
        } throws: { error in
            (error as? KeyedArchiveError)?.location == .keyPath("root.altitude")
        }
    }

    struct Document: Codable {
        var title: String
        @KeyedArchived var core: CPUCore
        @KeyedArchived var size: ArchivedSize
    }

    @Test func keyedArchivedThroughJSONAndPropertyList() throws {
        let document = Document(
            title: "spec", core: CPUCore(number: 7), size: ArchivedSize(width: 3, height: 4))
        let json = try JSONEncoder().encode(document)
        let fromJSON = try JSONDecoder().decode(Document.self, from: json)
        #expect(fromJSON.title == "spec")
        #expect(fromJSON.core.number == 7)
        #expect(fromJSON.size == ArchivedSize(width: 3, height: 4))

        let plist = try PropertyListEncoder().encode(document)
        let fromPlist = try PropertyListDecoder().decode(Document.self, from: plist)
        #expect(fromPlist.core.number == 7)
        #expect(fromPlist.size == ArchivedSize(width: 3, height: 4))

        // The stored Data is a keyed archive.
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        let base64 = try #require(object?["core"] as? String)
        let archive = try #require(Data(base64Encoded: base64))
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: CPUCore.self, from: archive)?.number == 7)
    }

    @Test func keyedArchivedRejectsGarbage() throws {
        let json = Data(#"{"title":"x","core":"AAAA","size":"AAAA"}"#.utf8)
        #expect {
            _ = try JSONDecoder().decode(Document.self, from: json)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.underlyingError is KeyedArchiveError
        }
    }
}
