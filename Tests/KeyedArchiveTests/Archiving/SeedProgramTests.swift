import Foundation
import KeyedArchive
import Testing

// The archiving code of two common tutorials, changed only by the renames of
// Documentation/MigratingFromNSKeyedArchiver.md: `NSObject, NSCoding` → `KeyedCoding`,
// `NSCoder` → `KeyedArchiver` / `KeyedUnarchiver`, `decodeObject(forKey:) as! T` →
// `try decodeObject(of: T.self, forKey:)`, `NSKeyedArchiver` → `KeyedArchiver`, plus `try`.
// (Namespaced only because the test module already has types called Item and Shape.)

// MARK: - Homepwner (Big Nerd Ranch, "Saving, Loading, and Application State")

enum Homepwner {
    final class Item: KeyedCoding {  // was: class Item: NSObject, NSCoding
        var name: String
        var valueInDollars: Int
        var serialNumber: String?
        let dateCreated: Date
        let itemKey: String

        init(name: String, serialNumber: String?, valueInDollars: Int) {
            self.name = name
            self.valueInDollars = valueInDollars
            self.serialNumber = serialNumber
            self.dateCreated = Date()
            self.itemKey = UUID().uuidString
        }

        func encode(with aCoder: KeyedArchiver) {
            aCoder.encode(name, forKey: "name")
            aCoder.encode(dateCreated, forKey: "dateCreated")
            aCoder.encode(itemKey, forKey: "itemKey")
            aCoder.encode(serialNumber, forKey: "serialNumber")
            aCoder.encode(valueInDollars, forKey: "valueInDollars")
        }

        init(coder aDecoder: KeyedUnarchiver) throws {
            name = try aDecoder.decodeObject(of: String.self, forKey: "name") ?? ""
            dateCreated = try aDecoder.decodeObject(of: Date.self, forKey: "dateCreated") ?? Date()
            itemKey = try aDecoder.decodeObject(of: String.self, forKey: "itemKey") ?? ""
            serialNumber = try aDecoder.decodeObject(of: String.self, forKey: "serialNumber")
            valueInDollars = try aDecoder.decodeInteger(forKey: "valueInDollars")
        }
    }

    final class ItemStore {
        var allItems = [Item]()
        let itemArchiveURL: URL

        init(itemArchiveURL: URL) {
            self.itemArchiveURL = itemArchiveURL
            // was: if let archivedItems = NSKeyedUnarchiver.unarchiveObject(withFile: path) as? [Item]
            if let data = try? Data(contentsOf: itemArchiveURL),
                let unarchiver = try? KeyedUnarchiver(forReadingFrom: data)
            {
                unarchiver.requiresSecureCoding = false  // Item adopts KeyedCoding, not the secure protocol
                if let archivedItems = try? unarchiver.decodeArrayOfObjects(
                    ofClass: Item.self, forKey: KeyedArchiver.rootObjectKey)
                {
                    allItems = archivedItems
                }
            }
        }

        @discardableResult
        func createItem(name: String, serialNumber: String?, valueInDollars: Int) -> Item {
            let newItem = Item(name: name, serialNumber: serialNumber, valueInDollars: valueInDollars)
            allItems.append(newItem)
            return newItem
        }

        func removeItem(_ item: Item) {
            if let index = allItems.firstIndex(where: { $0 === item }) {
                allItems.remove(at: index)
            }
        }

        func saveChanges() -> Bool {
            do {
                let data = try KeyedArchiver.archivedData(
                    withRootObject: allItems, requiringSecureCoding: false)
                try data.write(to: itemArchiveURL, options: [.atomic])
                return true
            } catch {
                return false
            }
        }
    }
}

// MARK: - Secure shapes on a canvas (NSSecureCoding tutorials)

enum Drawing {
    class Shape: SecureKeyedCoding {  // was: class Shape: NSObject, NSSecureCoding
        class var supportsSecureCoding: Bool { true }
        var strokeColor: String

        init(strokeColor: String) { self.strokeColor = strokeColor }

        func encode(with coder: KeyedArchiver) {
            coder.encode(strokeColor, forKey: "strokeColor")
        }

        required init(coder: KeyedUnarchiver) throws {
            strokeColor = try coder.decodeObject(of: String.self, forKey: "strokeColor") ?? "black"
        }
    }

    final class Circle: Shape {
        var centerX: Double
        var centerY: Double
        var radius: Double

        init(centerX: Double, centerY: Double, radius: Double, strokeColor: String) {
            self.centerX = centerX
            self.centerY = centerY
            self.radius = radius
            super.init(strokeColor: strokeColor)
        }

        override func encode(with coder: KeyedArchiver) {
            super.encode(with: coder)
            coder.encode(centerX, forKey: "centerX")
            coder.encode(centerY, forKey: "centerY")
            coder.encode(radius, forKey: "radius")
        }

        required init(coder: KeyedUnarchiver) throws {
            centerX = try coder.decodeDouble(forKey: "centerX")
            centerY = try coder.decodeDouble(forKey: "centerY")
            radius = try coder.decodeDouble(forKey: "radius")
            try super.init(coder: coder)
        }
    }

    final class Triangle: Shape {
        var vertices: [Double]  // x0, y0, x1, y1, x2, y2

        init(vertices: [Double], strokeColor: String) {
            self.vertices = vertices
            super.init(strokeColor: strokeColor)
        }

        override func encode(with coder: KeyedArchiver) {
            super.encode(with: coder)
            coder.encode(vertices, forKey: "vertices")
        }

        required init(coder: KeyedUnarchiver) throws {
            vertices = try coder.decodeArrayOfObjects(ofClass: Double.self, forKey: "vertices") ?? []
            try super.init(coder: coder)
        }
    }

    /// Not on the canvas's allowed list.
    final class Square: Shape {}

    final class Canvas: SecureKeyedCoding {
        static var supportsSecureCoding: Bool { true }
        var title: String
        var circle: Circle?
        var triangle: Triangle?
        var shapes: [Shape]

        init(title: String, circle: Circle?, triangle: Triangle?, shapes: [Shape]) {
            self.title = title
            self.circle = circle
            self.triangle = triangle
            self.shapes = shapes
        }

        func encode(with coder: KeyedArchiver) {
            coder.encode(title, forKey: "title")
            coder.encode(circle, forKey: "circle")
            coder.encode(triangle, forKey: "triangle")
            coder.encode(shapes, forKey: "shapes")
        }

        init(coder: KeyedUnarchiver) throws {
            title = try coder.decodeObject(of: String.self, forKey: "title") ?? ""
            circle = try coder.decodeObject(of: Circle.self, forKey: "circle")
            triangle = try coder.decodeObject(of: Triangle.self, forKey: "triangle")
            // was: decodeObject(of: [NSArray.self, Circle.self, Triangle.self], forKey: "shapes") as? [Shape]
            shapes =
                try coder.decodeObject(of: [Circle.self, Triangle.self], forKey: "shapes") as? [Shape] ?? []
        }
    }
}

@Suite("Seed programs: tutorial archiving code after the rename")
struct SeedProgramTests {
    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "SeedProgram-\(UUID().uuidString).archive")
    }

    @Test func homepwnerStoreSavesAndLoadsItsItems() throws {
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        let store = Homepwner.ItemStore(itemArchiveURL: url)
        #expect(store.allItems.isEmpty, "no archive yet")
        store.createItem(name: "Rusty Spork", serialNumber: "A1B2C3", valueInDollars: 42)
        let laptop = store.createItem(name: "Shiny Laptop", serialNumber: nil, valueInDollars: 1_299)
        store.createItem(name: "Fluffy Bear", serialNumber: "Z9", valueInDollars: 0)
        store.createItem(name: "Fluffy Bear", serialNumber: "Z9", valueInDollars: -5)
        store.removeItem(laptop)
        store.createItem(name: "Shiny Laptop", serialNumber: nil, valueInDollars: 1_299)
        #expect(store.saveChanges())

        let reloaded = Homepwner.ItemStore(itemArchiveURL: url)
        #expect(reloaded.allItems.count == 4)
        for (original, loaded) in zip(store.allItems, reloaded.allItems) {
            #expect(loaded.name == original.name)
            #expect(loaded.valueInDollars == original.valueInDollars)
            #expect(loaded.serialNumber == original.serialNumber)
            #expect(loaded.itemKey == original.itemKey)
            #expect(loaded.dateCreated == original.dateCreated)
        }
        #expect(reloaded.allItems.last?.serialNumber == nil)

        // Saving again after a change, and loading once more.
        reloaded.allItems[0].valueInDollars = 7
        #expect(reloaded.saveChanges())
        #expect(Homepwner.ItemStore(itemArchiveURL: url).allItems.first?.valueInDollars == 7)
    }

    @Test func homepwnerItemsAreRefusedBySecureDecoding() throws {
        let items = [Homepwner.Item(name: "Spork", serialNumber: nil, valueInDollars: 1)]
        let data = try KeyedArchiver.archivedData(withRootObject: items, requiringSecureCoding: false)
        let error = ArchiveTest.error {
            try KeyedUnarchiver(forReadingFrom: data).decodeArrayOfObjects(
                ofClass: Homepwner.Item.self, forKey: KeyedArchiver.rootObjectKey)
        }
        #expect(error?.code == .classNotAllowed)
        // And archiving them securely fails rather than writing an archive nobody can read securely.
        #expect(throws: KeyedArchiveError.self) {
            try KeyedArchiver.archivedData(withRootObject: items, requiringSecureCoding: true)
        }
    }

    @Test func homepwnerStoreStartsEmptyOnACorruptFile() throws {
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("bplist00 not really".utf8).write(to: url)
        #expect(Homepwner.ItemStore(itemArchiveURL: url).allItems.isEmpty)
    }

    static func canvas(extra: [Drawing.Shape] = []) -> Drawing.Canvas {
        let circle = Drawing.Circle(centerX: 10, centerY: -2.5, radius: 4, strokeColor: "red")
        let triangle = Drawing.Triangle(vertices: [0, 0, 3, 0, 0, 4], strokeColor: "blue")
        return Drawing.Canvas(
            title: "Sketch", circle: circle, triangle: triangle, shapes: [circle, triangle, circle] + extra)
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func secureCanvasRoundTrips(format: PropertyListFormat) throws {
        let data = try KeyedArchiver.archivedData(
            withRootObject: Self.canvas(), requiringSecureCoding: true, format: format)
        let unarchiver = try KeyedUnarchiver(forReadingFrom: data)
        #expect(unarchiver.requiresSecureCoding)
        let canvas = try #require(
            try unarchiver.decodeObject(of: Drawing.Canvas.self, forKey: KeyedArchiver.rootObjectKey))
        #expect(canvas.title == "Sketch")
        let circle = try #require(canvas.circle)
        #expect([circle.centerX, circle.centerY, circle.radius] == [10, -2.5, 4])
        #expect(circle.strokeColor == "red")
        let triangle = try #require(canvas.triangle)
        #expect(triangle.vertices == [0, 0, 3, 0, 0, 4])
        #expect(triangle.strokeColor == "blue")
        #expect(canvas.shapes.count == 3)
        #expect(canvas.shapes[0] === circle, "the circle is one shared instance")
        #expect(canvas.shapes[1] === triangle)
        #expect(canvas.shapes[2] === circle)
    }

    @Test func secureCanvasRefusesAShapeOutsideTheAllowedSet() throws {
        let data = try KeyedArchiver.archivedData(
            withRootObject: Self.canvas(extra: [Drawing.Square(strokeColor: "green")]),
            requiringSecureCoding: true)
        let error = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: Drawing.Canvas.self, from: data)
        }
        #expect(error?.code == .classNotAllowed)
        #expect(error?.description.contains("Square") == true, "\(String(describing: error))")
        #expect(error?.description.contains("shapes") == true, "the key path names the field")
    }

    @Test func secureCanvasRefusesASuperclassWhereASubclassIsExpected() throws {
        // A plain Shape stored under "circle": decodeObject(of: Circle.self) must not accept it.
        let data = try KeyedArchiver.archivedData(
            withRootObject: ShapeInCircleSlot(), requiringSecureCoding: true)
        let error = ArchiveTest.error {
            try KeyedUnarchiver.unarchivedObject(ofClass: Drawing.Canvas.self, from: data)
        }
        #expect(
            error?.code == .classNotAllowed || error?.code == .typeMismatch, "\(String(describing: error))")
    }
}

/// Writes a Canvas-shaped archive whose `circle` is a plain `Shape`.
struct ShapeInCircleSlot: SecureKeyedCoding {
    static var archivedClassName: String { Drawing.Canvas.archivedClassName }
    init() {}
    init(coder: KeyedUnarchiver) throws {}
    func encode(with coder: KeyedArchiver) {
        coder.encode("x", forKey: "title")
        coder.encode(Drawing.Shape(strokeColor: "black"), forKey: "circle")
    }
}
