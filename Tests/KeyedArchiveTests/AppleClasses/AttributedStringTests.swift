import Foundation
import Testing

@testable import ArchivedAppleClasses
@testable import KeyedArchive

/// Attributed strings, fonts, colours and paragraph styles, read from what Apple wrote and
/// written back in Apple's layout.
@Suite struct AttributedStringTests {
    // MARK: corelibs macOS 10.14 fixtures (NSAttributeInfo run-length form)

    @Test(arguments: [
        "corelibs_macOS-10.14_NSAttributedString.archive",
        "corelibs_macOS-10.14_NSMutableAttributedString.archive",
    ])
    func runLengthFormFromMacOS(_ name: String) throws {
        guard let data = try AppleFixture.data(name) else { return }
        let text = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data))
        #expect(text.string == "0123456789")
        #expect(text.isMutable == name.contains("Mutable"))
        // FixtureValues.swift: Helvetica 123 on 1..<9, Times 456 on 2..<4, 4..<6, 8..<9.
        #expect(text.runs.map(\.range) == [0..<1, 1..<2, 2..<6, 6..<8, 8..<9, 9..<10])
        let helvetica: [String: ArchivedAttributeValue] = [
            "Font": .string("Helvetica"), "Size": .integer(123),
        ]
        let times: [String: ArchivedAttributeValue] = ["Font": .string("Times"), "Size": .integer(456)]
        #expect(text.runs.map(\.attributes) == [[:], helvetica, times, helvetica, times, [:]])
        #expect(text.text(in: text.runs[2].range) == "2345")
        // Written back, the archive is Apple's, object for object.
        let written = try KeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: true)
        #expect(try PropertyList(from: written) == PropertyList(from: data), "\(name)")
    }

    // MARK: wild archives (single NSAttributes dictionary)

    @Test func xcodeStateAttributedStringsHoldFontsAndColours() throws {
        let name = "wild_Candy_UserInterfaceState.xcuserstate.embedded__objects__1328__NS.data.bplist"
        guard let data = try AppleFixture.data(name) else { return }
        let text = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data))
        #expect(text.string == "Failed")
        #expect(!text.isMutable)
        #expect(text.runs.count == 1)
        #expect(text.runs[0].range == 0..<6)
        guard case .font(let font)? = text.runs[0].attributes["NSFont"] else {
            Issue.record("NSFont is \(String(describing: text.runs[0].attributes["NSFont"]))")
            return
        }
        #expect(font.name == ".AppleSystemUIFontBold")
        #expect(font.size == 11)
        #expect(font.flags == 3344)
        #expect(font.description == ".AppleSystemUIFontBold 11 pt")
        guard case .color(let color)? = text.runs[0].attributes["NSColor"] else {
            Issue.record("NSColor missing")
            return
        }
        #expect(color.space == .calibratedRGB)
        #expect(color.components == [1, 0, 0, 1])
        #expect(color.hexString == "#FF0000FF")
        let written = try KeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: true)
        #expect(try PropertyList(from: written) == PropertyList(from: data))
    }

    @Test func everyAttributedStringOfTheWildArchivesDecodesAndWritesBack() throws {
        guard Fixtures.isAvailable else { return }
        let folder = Fixtures.root.appendingPathComponent(AppleFixture.folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix("wild_") && !$0.hasSuffix(".json") }.sorted()
        var decoded = 0
        var texts: [String] = []
        for name in names {
            guard let archive = try AppleFixture.propertyList(name) else { continue }
            for className in ["NSAttributedString", "NSMutableAttributedString"] {
                for uid in AppleFixture.objects(ofClass: className, in: archive) {
                    let text = try AppleFixture.decode(ArchivedAttributedString.self, at: uid, in: archive)
                    #expect(text.isMutable == (className == "NSMutableAttributedString"), "\(name) #\(uid)")
                    texts.append(text.string)
                    let written = try KeyedArchiver.archivedData(
                        withRootObject: text, requiringSecureCoding: true)
                    #expect(
                        try AppleFixture.rootTree(written) == AppleFixture.tree(of: uid, in: archive),
                        "\(name) #\(uid)")
                    decoded += 1
                }
            }
        }
        #expect(decoded >= 10)
        #expect(texts.contains("Succeeded"))
        #expect(texts.contains("#include \"gui/"))
        #expect(texts.contains("exit"))
    }

    @Test func nibTextStorageParagraphStyleAndCatalogueColour() throws {
        let name = "wild_Candy_UserInterfaceState.xcuserstate"
        guard let archive = try AppleFixture.propertyList(name) else { return }
        let uids = AppleFixture.objects(ofClass: "NSMutableAttributedString", in: archive)
        let texts = try uids.map {
            try AppleFixture.decode(ArchivedAttributedString.self, at: $0, in: archive)
        }
        let include = try #require(texts.first { $0.string == "#include \"gui/" })
        let attributes = include.runs[0].attributes
        guard case .paragraphStyle(let style)? = attributes["NSParagraphStyle"],
            case .color(let color)? = attributes["NSColor"], case .font(let font)? = attributes["NSFont"]
        else {
            Issue.record("attributes: \(attributes)")
            return
        }
        #expect(style.isMutable)
        #expect(style.alignment == 4)
        #expect(style.lineBreakMode == 2)
        #expect(style.fields["NSTabStops"] == .null)
        #expect(color.space == .catalog)
        #expect(color.catalogName == "System")
        #expect(color.colorName == "controlTextColor")
        #expect(color.fallback?.components == [0, 1])
        #expect(color.fallback?.space == .calibratedWhite)
        #expect(color.fallback?.hexString == "#000000FF")
        #expect(font.size == 11)
        #expect(font.flags == 3088)
    }

    // MARK: fonts, colours, paragraph styles on their own

    @Test func terminalColoursKeepTheirDigits() throws {
        let cases: [(String, [Double])] = [
            ("Clear_Dark__BackgroundColor", [0.09838771145, 0.1138777476, 0.152602838, 0.95]),
            ("Novel__SelectionColor", [0.45408165, 0.45100489, 0.31514391, 0.75999999]),
            ("Red_Sands__BackgroundColor", [0.47826087, 0.14510436, 0.11688121, 0.85000002]),
        ]
        for (suffix, components) in cases {
            let name =
                "wild_Python_DigitalDe_com.apple.Terminal.plist.embedded_Window_Settings__\(suffix).bplist"
            guard let data = try AppleFixture.data(name) else { return }
            let color = try #require(
                try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedColor.self, from: data))
            #expect(color.platform == .appKit)
            #expect(color.space == .calibratedRGB)
            #expect(color.components == components, "\(suffix)")
            #expect(color.hexString == nil)
            let written = try KeyedArchiver.archivedData(withRootObject: color, requiringSecureCoding: true)
            #expect(try PropertyList(from: written) == PropertyList(from: data), "\(suffix)")
        }
    }

    @Test func nibColoursWithCustomSpacesAndICCProfiles() throws {
        let name = "wild_Flycut_English.lproj_MainMenu.nib_keyedobjects.nib"
        guard let archive = try AppleFixture.propertyList(name) else { return }
        let uids = AppleFixture.objects(ofClass: "NSColor", in: archive)
        #expect(uids.count > 5)
        var sawICC = false
        var sawCatalogue = false
        for uid in uids {
            let color = try AppleFixture.decode(ArchivedColor.self, at: uid, in: archive)
            if let profile = color.customColorSpace?.iccProfile {
                sawICC = true
                #expect(profile.count > 1000)
                #expect(color.customComponents != nil)
            }
            if color.colorName == "textColor" {
                sawCatalogue = true
                #expect(color.catalogName == "System")
                #expect(color.fallback?.customComponents == [0, 1])
                #expect(color.fallback?.customColorSpace?.identifier == 9)
                #expect(color.fallback?.customColorSpace?.iccProfile?.count == 4508)
                #expect(color.description.hasPrefix("catalog System textColor"))
            }
            let written = try KeyedArchiver.archivedData(withRootObject: color, requiringSecureCoding: true)
            #expect(try AppleFixture.rootTree(written) == AppleFixture.tree(of: uid, in: archive), "#\(uid)")
        }
        #expect(sawICC)
        #expect(sawCatalogue)
    }

    @Test func nibFontsAndParagraphStyles() throws {
        let name = "wild_nv_French.lproj_NotationPrefsView.nib_keyedobjects.nib"
        guard let archive = try AppleFixture.propertyList(name) else { return }
        let fonts = try AppleFixture.objects(ofClass: "NSFont", in: archive).map {
            try AppleFixture.decode(ArchivedFont.self, at: $0, in: archive)
        }
        #expect(fonts.contains { $0.name == "LucidaGrande" && $0.size == 11 && $0.flags == 3100 })
        #expect(fonts.contains { $0.description == "LucidaGrande 13 pt" && $0.flags == 1044 })
        let flycut = "wild_Flycut_English.lproj_MainMenu.nib_keyedobjects.nib"
        guard let nib = try AppleFixture.propertyList(flycut) else { return }
        for uid in AppleFixture.objects(ofClass: "NSParagraphStyle", in: nib) {
            let style = try AppleFixture.decode(ArchivedParagraphStyle.self, at: uid, in: nib)
            #expect(!style.isMutable)
            #expect(style.alignment == 4)
            #expect(style.fields["NSAllowsTighteningForTruncation"] == .integer(1))
            #expect(style.fields["NSTighteningFactorForTruncation"]?.doubleValue == Double(Float(0.05)))
            let written = try KeyedArchiver.archivedData(withRootObject: style, requiringSecureCoding: true)
            #expect(try AppleFixture.rootTree(written) == AppleFixture.tree(of: uid, in: nib))
        }
        for uid in AppleFixture.objects(ofClass: "NSFont", in: nib) {
            let font = try AppleFixture.decode(ArchivedFont.self, at: uid, in: nib)
            let written = try KeyedArchiver.archivedData(withRootObject: font, requiringSecureCoding: true)
            #expect(try AppleFixture.rootTree(written) == AppleFixture.tree(of: uid, in: nib), "#\(uid)")
            if font.otherFields["NSFontUsesAppearanceFontSize"] != nil {
                #expect(font.otherFields["NSFontUsesAppearanceFontSize"] == .bool(true))
            }
        }
    }

    // MARK: values we build

    @Test func threeRunsRoundTripAndUseTheRunLengthForm() throws {
        let link = URL(string: "https://swift.org")!
        let text = ArchivedAttributedString(
            "Hello, wörld 🌍",
            runs: [
                .init(
                    range: 0..<5,
                    attributes: ["NSFont": .font(ArchivedFont(name: "Helvetica-Bold", size: 12))]),
                .init(
                    range: 5..<7, attributes: ["NSColor": .color(ArchivedColor(red: 0, green: 0.5, blue: 1))]),
                .init(range: 7..<15, attributes: ["NSLink": .url(link)]),
            ], isMutable: true)
        let data = try KeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: true)
        let copy = try #require(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedAttributedString.self, from: data))
        #expect(copy == text)
        #expect(copy.text(in: 7..<15) == "wörld 🌍")
        let archive = try PropertyList(from: data)
        let objects = try #require(archive["$objects"]?.arrayValue)
        let classNames = objects.compactMap { $0["$classname"]?.stringValue }
        #expect(classNames.contains("NSMutableAttributedString"))
        #expect(classNames.contains("NSMutableString"))
        #expect(classNames.contains("NSMutableData"))
        let root = try AppleFixture.rootTree(data)
        #expect(root["NSAttributeInfo"]?["NS.data"]?.dataValue == Data([5, 0, 2, 1, 8, 2]))
        #expect(root["$class"] == .array(["NSMutableAttributedString", "NSAttributedString", "NSObject"]))
        #expect(text.description.contains("NSFont = Helvetica-Bold 12 pt"))
    }

    @Test func malformedRunLengthsAreErrors() throws {
        #expect(throws: (any Error).self) {
            try AttributeRunLengths.parse(Data([5, 3]), dictionaryCount: 1, length: 5).get()
        }
        #expect(throws: (any Error).self) {
            try AttributeRunLengths.parse(Data([9, 0]), dictionaryCount: 1, length: 5).get()
        }
        #expect(throws: (any Error).self) {
            try AttributeRunLengths.parse(Data([0x80]), dictionaryCount: 1, length: 5).get()
        }
        #expect(throws: (any Error).self) {
            try AttributeRunLengths.parse(Data(repeating: 0xFF, count: 20), dictionaryCount: 1, length: 5)
                .get()
        }
        let pairs = try AttributeRunLengths.parse(Data([0x81, 0x01, 0]), dictionaryCount: 1, length: 200)
            .get()
        #expect(pairs.map(\.0) == [129])
    }

    @Test func uiColourAndUIFontLayouts() throws {
        var color = ArchivedColor(red: 1, green: 0.5, blue: 0, alpha: 1, space: .deviceRGB, platform: .uiKit)
        color.otherFields["UIColorComponentCount"] = .integer(4)
        let font = ArchivedFont(name: "HelveticaNeue", size: 17, platform: .uiKit, flags: 0)
        for value in [ArchivedAttributeValue.color(color), .font(font)] {
            let text = ArchivedAttributedString("x", attributes: ["attr": value])
            let data = try KeyedArchiver.archivedData(withRootObject: text, requiringSecureCoding: true)
            let copy = try KeyedUnarchiver.unarchivedObject(
                ofClass: ArchivedAttributedString.self, from: data)
            #expect(copy == text)
        }
        let data = try KeyedArchiver.archivedData(withRootObject: color, requiringSecureCoding: true)
        let tree = try AppleFixture.rootTree(data)
        #expect(tree["UIRed"] == .real(1))
        #expect(tree["UIGreen"] == .real(0.5))
        #expect(tree["NSRGB"]?.dataValue == Data("1 0.5 0\0".utf8))
        #expect(tree["$class"] == .array(["UIColor", "NSObject"]))
        let systemBlue = ArchivedColor(systemName: "systemBlueColor")
        let blue = try KeyedArchiver.archivedData(withRootObject: systemBlue, requiringSecureCoding: true)
        #expect(
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedColor.self, from: blue)?.colorName
                == "systemBlueColor")
    }
}
