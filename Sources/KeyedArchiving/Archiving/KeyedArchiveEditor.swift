#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An edit of one value by key path: what `plutil -insert`, `-replace` and `-remove` do.
public enum PropertyListEdit: Hashable, Sendable {
    /// Adds a value where there is none; an array index may be one past the end.
    case insert(PropertyList)
    /// Adds a value at the end of the array the key path names.
    case append(PropertyList)
    /// Sets the value, whether or not there was one.
    case replace(PropertyList)
    /// Removes the value, which must exist.
    case remove
}

/// What an edit does to an object that more than one reference points at.
public enum SharedObjectEditing: Hashable, Sendable {
    /// The edit changes only the path it names: each shared object on the way is copied
    /// (appended to `$objects`) and only that path's reference repointed at the copy, so
    /// every other reference keeps the old value.
    case copyOnWrite
    /// The shared objects the key path passes through (and a shared object it replaces)
    /// are edited themselves, so every reference sees the change: a nib's menu item
    /// referenced from its menu and from the nib's object table keeps one identity. A shared
    /// plain string, number or data that is replaced is still written as a new object: the
    /// archiver stores equal values once, so other references share it by value, not by
    /// identity.
    case editInPlace
}

/// Edits a keyed archive (`NSKeyedArchiver`'s property list) by key paths through its object
/// graph, changing only the objects the edit names.
///
/// ```swift
/// let data = try KeyedArchiver.archivedData(withRootObject: ["Moth", "Moth"], requiringSecureCoding: true)
/// var editor = try KeyedArchiveEditor(archive: try PropertyList(from: data))
/// try editor.apply(.replace("Pill Bug"), atKeyPath: ["root", "1"])  // element 0 stays "Moth"
/// let edited = try editor.archive.data(format: .binary)
/// ```
///
/// Key paths are spelled as ``ArchivedObjectGraph/value(atKeyPath:)`` reads them: the first
/// component names a `$top` entry (usually `root`); each later one an object's field, an
/// `NSDictionary`'s entry by key (both `NS.keys` and `NS.objects` are edited together), an
/// `NSArray`'s element by index (in `NS.objects`), or a plain dictionary's or array's entry,
/// references (`CF$UID`) being followed on the way. A component that meets a `data` value (or
/// an `NSData` object) holding a binary or XML property list or keyed archive continues inside
/// it; that data is re-encoded in its own format and stored back in place.
///
/// The edit changes the object it names and nothing else:
/// - every object the edit does not touch keeps its `$objects` index and its value;
/// - with ``SharedObjectEditing/copyOnWrite`` (the default), an object referenced from more
///   than one place that the edit would change is copied to a new `$objects` entry and only
///   the edited path's reference repointed at it; a replaced value that other references
///   share is written as a new object. With ``SharedObjectEditing/editInPlace``, the shared
///   objects on the path themselves change (a shared plain string, number or data replaced
///   is still written anew);
/// - a value added is archived as `NSKeyedArchiver` would: a string, number or data as a plain
///   `$objects` entry, a date as an `NSDate` object (`NS.time`), an array as an `NSArray`
///   (`NS.objects`), a dictionary as an `NSDictionary` (`NS.keys`, `NS.objects`), with class
///   descriptions reused from the archive or added with the catalogue's class chains. Where
///   the value replaced was stored inline (an object's `NSSize` real, an integer field), a
///   number, Boolean or data stays inline.
public struct KeyedArchiveEditor: Sendable {
    /// How the edit treats shared objects.
    public var sharedObjects: SharedObjectEditing

    private var document: PropertyListDictionary
    private var objects: [PropertyList]
    private var top: PropertyListDictionary
    private var referenceCounts: [Int]
    private var classReferences: [String: Int] = [:]
    /// How many archives deep this archive lies inside `data` values.
    private let level: Int

    /// How many archives deep an edit descends into archives stored in `data` values.
    public static let maximumNestingLevels = 4

    /// The archive as edited so far.
    public var archive: PropertyList {
        var result = document
        result["$objects"] = .array(objects)
        result["$top"] = .dictionary(top)
        return .dictionary(result)
    }

    /// Starts editing `archive`.
    ///
    /// - Parameters:
    ///   - archive: A keyed archive's property list: a dictionary with `$objects` (an array)
    ///     and `$top` (a dictionary).
    ///   - sharedObjects: Whether shared objects are copied on write (the default) or edited
    ///     in place.
    /// - Throws: ``KeyedArchiveError`` with code `invalidArchive` when `archive` has no
    ///   `$objects` array or `$top` dictionary.
    public init(archive: PropertyList, sharedObjects: SharedObjectEditing = .copyOnWrite)
        throws(KeyedArchiveError)
    {
        try self.init(archive: archive, sharedObjects: sharedObjects, level: 0)
    }

    private init(archive: PropertyList, sharedObjects: SharedObjectEditing, level: Int)
        throws(KeyedArchiveError)
    {
        guard case .dictionary(let document) = archive, case .array(let objects)? = document["$objects"],
            case .dictionary(let top)? = document["$top"]
        else {
            throw KeyedArchiveError(
                .invalidArchive, "not a keyed archive: no $objects array and $top dictionary")
        }
        self.document = document
        self.objects = objects
        self.top = top
        self.sharedObjects = sharedObjects
        self.level = level
        var counts = [Int](repeating: 0, count: objects.count)
        var pending: [PropertyList] = [.dictionary(top)] + objects
        while let value = pending.popLast() {
            switch value {
            case .uid(let uid):
                if uid < UInt64(counts.count) { counts[Int(uid)] += 1 }
            case .array(let elements): pending.append(contentsOf: elements)
            case .dictionary(let dictionary): pending.append(contentsOf: dictionary.values)
            default: break
            }
        }
        self.referenceCounts = counts
    }

    /// Applies `edit` at the key path `components` (see the type's description for the
    /// spelling).
    ///
    /// - Parameters:
    ///   - edit: The insertion, replacement or removal.
    ///   - components: The key path, one key or index per element.
    /// - Throws: ``KeyedArchiveError`` at the key path: `invalidValue` when a component names
    ///   nothing, a value to insert already exists, a value to remove does not, or an index
    ///   is out of bounds; `unsupportedFormat` when data the path descends into is not a
    ///   property list; `limitExceeded` past ``maximumNestingLevels``. The archive is then
    ///   left as it was.
    /// - Complexity: O(*n*) in the archive's size (class descriptions are looked up once, and
    ///   data descended into is read and written again), plus the work of the edit.
    public mutating func apply(_ edit: PropertyListEdit, atKeyPath components: [String])
        throws(KeyedArchiveError)
    {
        // All or nothing: a failed edit leaves the archive as it was (the arrays are
        // copied only if the edit changes them).
        let saved = self
        do {
            try applyWithoutRollback(edit, components)
        } catch {
            self = saved
            throw error
        }
    }

    private mutating func applyWithoutRollback(_ edit: PropertyListEdit, _ components: [String])
        throws(KeyedArchiveError)
    {
        let text = Self.text(components)
        guard let first = components.first else {
            throw KeyedArchiveError(.invalidValue, "an edit needs a key path", at: .keyPath(text))
        }
        if components.count == 1 {
            let parent = Position(slot: Slot(owner: .top, steps: []), hops: [])
            try applyToParent(edit, parent: parent, container: .dictionary(top), last: first, text: text)
            return
        }
        var position = Position(slot: Slot(owner: .top, steps: [.key(first)]), hops: [])
        guard value(at: position.slot) != nil else { throw notFound(text) }
        for index in 1..<components.count {
            let component = components[index]
            let (entered, container) = try enter(position, text)
            if case .data(let data) = container {
                try editNested(data, at: position, Array(components[index...]), edit, text)
                return
            }
            if case .dictionary(let fields) = container, fields["$class"] != nil, fields[component] == nil,
                case .data(let data)? = fields["NS.data"]
            {
                let dataPosition = Position(
                    slot: Slot(owner: entered.slot.owner, steps: entered.slot.steps + [.key("NS.data")]),
                    hops: entered.hops)
                try editNested(data, at: dataPosition, Array(components[index...]), edit, text)
                return
            }
            if index == components.count - 1 {
                try applyToParent(edit, parent: entered, container: container, last: component, text: text)
                return
            }
            guard let next = child(of: container, at: entered, component) else { throw notFound(text) }
            position = next
        }
    }

    /// Applies `edit` at the key path `components` of `value`: through the object graph when
    /// `resolvingArchive` is `true` (`value` must then be a keyed archive), otherwise through
    /// plain dictionaries and arrays. Either way, a component that meets a `data` value
    /// holding a property list or keyed archive continues inside it (a keyed archive's key
    /// path there is a graph path, unless its first component is one of the archive's own
    /// keys, such as `$objects`), and the data is re-encoded in its own format.
    ///
    /// - Parameters:
    ///   - edit: The insertion, replacement or removal.
    ///   - components: The key path.
    ///   - value: The property list to edit.
    ///   - resolvingArchive: Whether the key path goes through `value`'s object graph.
    ///   - sharedObjects: How shared objects in archives are treated.
    /// - Returns: The edited property list.
    /// - Throws: ``KeyedArchiveError`` as ``apply(_:atKeyPath:)``.
    public static func applying(
        _ edit: PropertyListEdit, atKeyPath components: [String], to value: PropertyList,
        resolvingArchive: Bool, sharedObjects: SharedObjectEditing = .copyOnWrite
    ) throws(KeyedArchiveError) -> PropertyList {
        try applying(
            edit, components, to: value, resolvingArchive: resolvingArchive, sharedObjects: sharedObjects,
            level: 0, text: text(components))
    }

    private static func applying(
        _ edit: PropertyListEdit, _ components: [String], to value: PropertyList, resolvingArchive: Bool,
        sharedObjects: SharedObjectEditing, level: Int, text: String
    ) throws(KeyedArchiveError) -> PropertyList {
        if resolvingArchive {
            var editor = try KeyedArchiveEditor(archive: value, sharedObjects: sharedObjects, level: level)
            try editor.apply(edit, atKeyPath: components)
            return editor.archive
        }
        return try PlainEditor(sharedObjects: sharedObjects, level: level, text: text).apply(
            edit, components[...], to: value)
    }

    /// `data`, holding a property list, with `edit` applied at `components` inside it and
    /// written again in the same format.
    fileprivate static func editedData(
        _ data: Data, _ components: [String], _ edit: PropertyListEdit, sharedObjects: SharedObjectEditing,
        level: Int, text: String
    ) throws(KeyedArchiveError) -> Data {
        guard level < maximumNestingLevels else {
            throw KeyedArchiveError(
                .limitExceeded, "archives nested more than \(maximumNestingLevels) deep in data values",
                at: .keyPath(text))
        }
        let format = PropertyListFormat.detect(data.prefix(64))
        guard format == .binary || format == .xml else {
            throw KeyedArchiveError(
                .unsupportedFormat,
                "the data value there holds no binary or XML property list or keyed archive to descend into",
                at: .keyPath(text))
        }
        let inner: PropertyList
        do {
            inner = try PropertyList(from: data)
        } catch let error as KeyedArchiveError {
            throw KeyedArchiveError(
                error.code, "the data value there does not read as a property list: \(error.description)",
                at: .keyPath(text))
        } catch {
            throw KeyedArchiveError(
                .corruptData, "the data value there does not read: \(error)", at: .keyPath(text))
        }
        var isArchive = false
        if case .dictionary(let dictionary) = inner, case .array? = dictionary["$objects"],
            case .dictionary? = dictionary["$top"], let first = components.first, dictionary[first] == nil
        {
            isArchive = true
        }
        let edited = try applying(
            edit, components, to: inner, resolvingArchive: isArchive, sharedObjects: sharedObjects,
            level: level + 1, text: text)
        let encoded: Data
        do {
            encoded = try edited.data(format: format)
        } catch let error as KeyedArchiveError {
            throw KeyedArchiveError(error.code, error.message, at: .keyPath(text))
        } catch {
            throw KeyedArchiveError(.invalidValue, "\(error)", at: .keyPath(text))
        }
        // What the readers would refuse (values nested deeper than they read) is refused
        // here, before it is stored where no reader could open it again.
        do {
            _ = try PropertyList(from: encoded)
        } catch {
            throw KeyedArchiveError(
                .limitExceeded, "the edited data value would not read again (\(error)); nothing was changed",
                at: .keyPath(text))
        }
        return encoded
    }

    // MARK: - Locations

    /// Where a value lives: in `$top`, or in an `$objects` entry.
    private enum Owner: Hashable {
        case top
        case object(Int)
    }

    private enum Step: Hashable {
        case key(String)
        case index(Int)
    }

    /// A value's place: its owner, and the keys and indices inside it.
    private struct Slot {
        var owner: Owner
        var steps: [Step]
    }

    /// A reference followed on the way: the slot holding it, and the object it names.
    private struct Hop {
        var referrer: Slot
        var target: Int
    }

    /// A slot reached along a key path, with the references followed to reach it.
    private struct Position {
        var slot: Slot
        var hops: [Hop]
    }

    private func base(_ owner: Owner) -> PropertyList? {
        switch owner {
        case .top: return .dictionary(top)
        case .object(let uid): return objects.indices.contains(uid) ? objects[uid] : nil
        }
    }

    private func value(at slot: Slot) -> PropertyList? {
        guard var current = base(slot.owner) else { return nil }
        for step in slot.steps {
            switch (step, current) {
            case (.key(let key), .dictionary(let dictionary)):
                guard let next = dictionary[key] else { return nil }
                current = next
            case (.index(let index), .array(let elements)):
                guard elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    private mutating func setValue(_ new: PropertyList, at slot: Slot) {
        guard var root = base(slot.owner) else { return }
        Self.set(new, in: &root, slot.steps[...])
        switch slot.owner {
        case .top:
            if case .dictionary(let dictionary) = root { top = dictionary }
        case .object(let uid):
            objects[uid] = root
        }
    }

    private static func set(_ new: PropertyList, in value: inout PropertyList, _ steps: ArraySlice<Step>) {
        guard let step = steps.first else {
            value = new
            return
        }
        switch (step, value) {
        case (.key(let key), .dictionary(var dictionary)):
            var child = dictionary[key] ?? .string("")
            set(new, in: &child, steps.dropFirst())
            dictionary[key] = child
            value = .dictionary(dictionary)
        case (.index(let index), .array(var elements)) where elements.indices.contains(index):
            set(new, in: &elements[index], steps.dropFirst())
            value = .array(elements)
        default:
            break
        }
    }

    /// The value at `position`, references followed: the position inside the object a
    /// reference names (with the hop recorded), and the value there.
    private func enter(_ position: Position, _ text: String) throws(KeyedArchiveError) -> (
        Position, PropertyList
    ) {
        guard let current = value(at: position.slot) else { throw notFound(text) }
        guard case .uid(let uid) = current else { return (position, current) }
        guard uid > 0, uid < UInt64(objects.count) else {
            throw KeyedArchiveError(
                .invalidValue,
                uid == 0 ? "a nil reference on the way" : "object reference \(uid) is out of range",
                at: .keyPath(text))
        }
        let target = Int(uid)
        let entered = Position(
            slot: Slot(owner: .object(target), steps: []),
            hops: position.hops + [Hop(referrer: position.slot, target: target)])
        return (entered, objects[target])
    }

    /// The text of an `NSDictionary` key: a plain string, or an `NSString` object's `NS.string`.
    private func keyText(_ key: PropertyList) -> String? {
        var resolved = key
        if case .uid(let uid) = key, uid < UInt64(objects.count) { resolved = objects[Int(uid)] }
        switch resolved {
        case .string(let text): return text
        case .dictionary(let fields):
            if case .string(let text)? = fields["NS.string"] { return text }
            if case .uid(let uid)? = fields["NS.string"], uid < UInt64(objects.count),
                case .string(let text) = objects[Int(uid)]
            {
                return text
            }
            return nil
        default: return nil
        }
    }

    /// How a container is archived.
    private enum Shape {
        /// An `NSDictionary` (`NS.keys`, `NS.objects`), its keys' texts.
        case archivedDictionary(keys: [String?], count: Int)
        /// An `NSArray` or `NSSet` (`NS.objects` only).
        case archivedArray(count: Int)
        /// An object's fields, or a plain dictionary.
        case fields(PropertyListDictionary)
        /// A plain array.
        case plainArray(count: Int)
        /// Anything else.
        case scalar
    }

    private func shape(of container: PropertyList) -> Shape {
        switch container {
        case .dictionary(let fields):
            if case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"],
                keys.count == values.count
            {
                return .archivedDictionary(keys: keys.map(keyText), count: keys.count)
            }
            if fields["$class"] != nil, fields["NS.keys"] == nil,
                case .array(let values)? = fields["NS.objects"]
            {
                return .archivedArray(count: values.count)
            }
            return .fields(fields)
        case .array(let elements): return .plainArray(count: elements.count)
        default: return .scalar
        }
    }

    private func child(of container: PropertyList, at position: Position, _ component: String) -> Position? {
        func at(_ steps: [Step]) -> Position {
            Position(
                slot: Slot(owner: position.slot.owner, steps: position.slot.steps + steps),
                hops: position.hops)
        }
        switch shape(of: container) {
        case .archivedDictionary(let keys, _):
            if case .dictionary(let fields) = container, fields[component] != nil {
                return at([.key(component)])
            }
            guard let index = keys.firstIndex(of: component) else { return nil }
            return at([.key("NS.objects"), .index(index)])
        case .archivedArray(let count):
            if case .dictionary(let fields) = container, fields[component] != nil {
                return at([.key(component)])
            }
            guard let index = Self.index(component), index < count else { return nil }
            return at([.key("NS.objects"), .index(index)])
        case .fields(let fields):
            return fields[component] != nil ? at([.key(component)]) : nil
        case .plainArray(let count):
            guard let index = Self.index(component), index < count else { return nil }
            return at([.index(index)])
        case .scalar:
            return nil
        }
    }

    // MARK: - Writing

    /// Makes the objects on `hops` safe to change for this path only: from the first shared
    /// one on, each is copied to a new `$objects` entry and the reference to it repointed.
    /// Returns where the last object (or `$top`) now is, and whether anything was copied.
    private mutating func prepareForWrite(_ hops: [Hop]) -> (owner: Owner, copied: Bool) {
        var owner = Owner.top
        var copying = false
        for hop in hops {
            if sharedObjects == .copyOnWrite && !copying && referenceCounts[hop.target] > 1 { copying = true }
            if copying {
                let copy = objects.count
                objects.append(objects[hop.target])
                referenceCounts.append(1)
                setValue(.uid(UInt64(copy)), at: Slot(owner: owner, steps: hop.referrer.steps))
                owner = .object(copy)
            } else {
                owner = .object(hop.target)
            }
        }
        return (owner, copying)
    }

    /// Sets the value at `position` to `new`: an object a reference there names is rewritten
    /// in its place when nothing else shares it (or shared objects are edited in place), else
    /// a new object is appended and the reference repointed; an inline number, Boolean or
    /// data stays inline.
    private mutating func write(_ new: PropertyList, at position: Position, text: String)
        throws(KeyedArchiveError)
    {
        let (owner, copied) = prepareForWrite(position.hops)
        let slot = Slot(owner: owner, steps: position.slot.steps)
        let existing = value(at: slot)
        if case .uid(let uid)? = existing, uid > 0, uid < UInt64(objects.count), !isClassDescription(Int(uid))
        {
            let target = Int(uid)
            // A plain string, number or data is shared only because the archiver stored equal
            // values once: it is never rewritten for every reference.
            let isPlainValue: Bool
            switch objects[target] {
            case .string, .integer, .real, .bool, .data: isPlainValue = true
            default: isPlainValue = false
            }
            let unshared = !copied && referenceCounts[target] <= 1
            let inPlace = unshared || (sharedObjects == .editInPlace && !isPlainValue)
            let body = try objectBody(new, replacing: objects[target], text: text)
            if inPlace {
                objects[target] = body
            } else {
                setValue(.uid(UInt64(append(body))), at: slot)
            }
            return
        }
        let isInline = existing.map { if case .uid = $0 { return false } else { return true } } ?? false
        setValue(try archived(new, inline: isInline, text: text), at: slot)
    }

    private func isClassDescription(_ uid: Int) -> Bool {
        if case .dictionary(let fields) = objects[uid], fields["$classname"] != nil { return true }
        return false
    }

    private mutating func append(_ body: PropertyList) -> Int {
        objects.append(body)
        referenceCounts.append(1)
        return objects.count - 1
    }

    /// `value` as a field or element holds it: inline when `inline` allows and it is a
    /// number, Boolean or data (or a UID); otherwise a reference to a new object.
    private mutating func archived(_ value: PropertyList, inline: Bool, text: String)
        throws(KeyedArchiveError)
        -> PropertyList
    {
        switch value {
        case .uid: return value
        case .integer, .real, .bool, .data:
            if inline { return value }
        default: break
        }
        return .uid(UInt64(append(try objectBody(value, replacing: nil, text: text))))
    }

    /// The `$objects` entry that archives `value`, keeping the class of a collection it
    /// replaces (`NSMutableArray` stays mutable).
    private mutating func objectBody(_ value: PropertyList, replacing old: PropertyList?, text: String)
        throws(KeyedArchiveError) -> PropertyList
    {
        switch value {
        case .string, .integer, .real, .bool, .data:
            return value
        case .uid:
            throw KeyedArchiveError(
                .invalidValue, "a UID cannot stand for an object of its own; give the value it should name",
                at: .keyPath(text))
        case .date(let date):
            return .dictionary([
                "NS.time": .real(date.timeIntervalSinceReferenceDate), "$class": classReference("NSDate"),
            ])
        case .array(let elements):
            let kept = keptClass(old, among: ["NSArray", "NSMutableArray"])
            var references: [PropertyList] = []
            for element in elements { references.append(try archived(element, inline: false, text: text)) }
            return .dictionary([
                "NS.objects": .array(references), "$class": kept ?? classReference("NSArray"),
            ])
        case .dictionary(let dictionary):
            let kept = keptClass(old, among: ["NSDictionary", "NSMutableDictionary"])
            var keys: [PropertyList] = []
            var values: [PropertyList] = []
            for entry in dictionary {
                keys.append(.uid(UInt64(append(.string(entry.key)))))
                values.append(try archived(entry.value, inline: false, text: text))
            }
            return .dictionary([
                "NS.keys": .array(keys), "NS.objects": .array(values),
                "$class": kept ?? classReference("NSDictionary"),
            ])
        }
    }

    /// The `$class` reference of `old` when its class is one of `names`.
    private func keptClass(_ old: PropertyList?, among names: Set<String>) -> PropertyList? {
        guard case .dictionary(let fields)? = old, case .uid(let uid)? = fields["$class"],
            uid < UInt64(objects.count), case .dictionary(let description) = objects[Int(uid)],
            case .string(let name)? = description["$classname"], names.contains(name)
        else { return nil }
        return .uid(uid)
    }

    /// A reference to the class description of `name`: the archive's own, or a new one with
    /// the catalogue's class chain.
    private mutating func classReference(_ name: String) -> PropertyList {
        if let known = classReferences[name] { return .uid(UInt64(known)) }
        for (uid, object) in objects.enumerated() {
            if case .dictionary(let fields) = object, case .string(name)? = fields["$classname"] {
                classReferences[name] = uid
                return .uid(UInt64(uid))
            }
        }
        let chain = ClassCatalogue.chain(forName: name).map { PropertyList.string($0) }
        let uid = append(.dictionary(["$classes": .array(chain), "$classname": .string(name)]))
        classReferences[name] = uid
        return .uid(UInt64(uid))
    }

    // MARK: - The edit at its parent

    private mutating func applyToParent(
        _ edit: PropertyListEdit, parent: Position, container: PropertyList, last: String, text: String
    ) throws(KeyedArchiveError) {
        let shape = shape(of: container)
        let isField: Bool
        if case .dictionary(let fields) = container, fields[last] != nil {
            isField = true
        } else {
            isField = false
        }
        if case .append(let value) = edit {
            // The key path names the array itself: `last` is its key in `container`.
            guard let arrayPosition = child(of: container, at: parent, last) else { throw notFound(text) }
            let (entered, array) = try enter(arrayPosition, text)
            let count: Int
            switch self.shape(of: array) {
            case .archivedArray(let elements), .plainArray(let elements): count = elements
            default:
                throw KeyedArchiveError(
                    .typeMismatch, "the value there is not an array; -append needs one", at: .keyPath(text))
            }
            try applyToParent(.insert(value), parent: entered, container: array, last: "\(count)", text: text)
            return
        }
        switch shape {
        case .archivedDictionary(let keys, _) where !isField:
            let position = keys.firstIndex(of: last)
            switch edit {
            case .replace(let value) where position != nil:
                try write(value, at: element(parent, position ?? 0), text: text)
            case .insert(let value), .replace(let value):
                if position != nil { throw exists(text) }
                let key = PropertyList.uid(UInt64(append(.string(last))))
                let reference = try archived(value, inline: false, text: text)
                try modify(parent) { fields in
                    Self.modifyArray(&fields, "NS.keys") { $0.append(key) }
                    Self.modifyArray(&fields, "NS.objects") { $0.append(reference) }
                }
            case .remove:
                guard let position else { throw nothingToRemove(text) }
                try modify(parent) { fields in
                    Self.modifyArray(&fields, "NS.keys") { $0.remove(at: position) }
                    Self.modifyArray(&fields, "NS.objects") { $0.remove(at: position) }
                }
            case .append: return
            }
        case .archivedArray(let count) where !isField, .plainArray(let count):
            let isPlain: Bool
            if case .plainArray = shape { isPlain = true } else { isPlain = false }
            guard let index = Self.index(last) else {
                throw KeyedArchiveError(
                    .invalidValue, "'\(last)' is not an index (a decimal number from 0)", at: .keyPath(text))
            }
            let outOfBounds = KeyedArchiveError(
                .invalidValue, "index \(last) out of bounds in an array of \(count)", at: .keyPath(text))
            let elementPosition = isPlain ? plainElement(parent, index) : element(parent, index)
            switch edit {
            case .replace(let value) where index < count:
                try write(value, at: elementPosition, text: text)
            case .insert(let value), .replace(let value):
                guard index <= count else { throw outOfBounds }
                let reference = try archived(value, inline: isPlain, text: text)
                try modify(parent) { container in
                    if isPlain {
                        if case .array(var elements) = container {
                            elements.insert(reference, at: index)
                            container = .array(elements)
                        }
                    } else {
                        Self.modifyArray(&container, "NS.objects") { $0.insert(reference, at: index) }
                    }
                }
            case .remove:
                guard index < count else { throw nothingToRemove(text) }
                try modify(parent) { container in
                    if isPlain {
                        if case .array(var elements) = container {
                            elements.remove(at: index)
                            container = .array(elements)
                        }
                    } else {
                        Self.modifyArray(&container, "NS.objects") { $0.remove(at: index) }
                    }
                }
            case .append: return
            }
        case .archivedDictionary, .archivedArray, .fields:
            let fieldPosition = Position(
                slot: Slot(owner: parent.slot.owner, steps: parent.slot.steps + [.key(last)]),
                hops: parent.hops)
            switch edit {
            case .replace(let value) where isField:
                try write(value, at: fieldPosition, text: text)
            case .insert(let value), .replace(let value):
                if isField { throw exists(text) }
                // A new field: strings, dates and containers as objects, numbers inline, as
                // `encode(_:forKey:)` writes them (a `$top` entry always as an object).
                let reference = try archived(
                    value, inline: parent.slot.owner != .top || !parent.slot.steps.isEmpty, text: text)
                try modify(parent) { container in
                    if case .dictionary(var fields) = container {
                        fields[last] = reference
                        container = .dictionary(fields)
                    }
                }
            case .remove:
                guard isField else { throw nothingToRemove(text) }
                try modify(parent) { container in
                    if case .dictionary(var fields) = container {
                        fields.removeValue(forKey: last)
                        container = .dictionary(fields)
                    }
                }
            case .append: return
            }
        case .scalar:
            throw notFound(text)
        }
    }

    private func element(_ parent: Position, _ index: Int) -> Position {
        Position(
            slot: Slot(
                owner: parent.slot.owner, steps: parent.slot.steps + [.key("NS.objects"), .index(index)]),
            hops: parent.hops)
    }

    private func plainElement(_ parent: Position, _ index: Int) -> Position {
        Position(
            slot: Slot(owner: parent.slot.owner, steps: parent.slot.steps + [.index(index)]),
            hops: parent.hops)
    }

    /// Changes the container at `parent` (copying shared objects on the way first).
    private mutating func modify(_ parent: Position, _ body: (inout PropertyList) -> Void)
        throws(KeyedArchiveError)
    {
        let (owner, _) = prepareForWrite(parent.hops)
        let slot = Slot(owner: owner, steps: parent.slot.steps)
        guard var container = value(at: slot) else { return }
        body(&container)
        setValue(container, at: slot)
    }

    private static func modifyArray(
        _ container: inout PropertyList, _ key: String, _ body: (inout [PropertyList]) -> Void
    ) {
        guard case .dictionary(var fields) = container, case .array(var elements)? = fields[key] else {
            return
        }
        body(&elements)
        fields[key] = .array(elements)
        container = .dictionary(fields)
    }

    /// Edits the archive or property list in the data at `position` and stores it back.
    private mutating func editNested(
        _ data: Data, at position: Position, _ components: [String], _ edit: PropertyListEdit, _ text: String
    ) throws(KeyedArchiveError) {
        let edited = try Self.editedData(
            data, components, edit, sharedObjects: sharedObjects, level: level, text: text)
        try write(.data(edited), at: position, text: text)
    }

    // MARK: - Errors

    private func notFound(_ text: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, "no value at that key path", at: .keyPath(text))
    }

    private func exists(_ text: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, "a value already exists at that key path", at: .keyPath(text))
    }

    private func nothingToRemove(_ text: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, "no value to remove at that key path", at: .keyPath(text))
    }

    fileprivate static func index(_ component: String) -> Int? {
        guard !component.isEmpty, component.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(component)
    }

    /// A key path as the tool spells it (`.` and `\` inside a component escaped).
    fileprivate static func text(_ components: [String]) -> String {
        components.map { component in
            var text = ""
            for character in component {
                if character == "." || character == "\\" { text.append("\\") }
                text.append(character)
            }
            return text
        }.joined(separator: ".")
    }
}

/// Edits through plain dictionaries and arrays, descending into property lists and keyed
/// archives stored in `data` values.
private struct PlainEditor {
    let sharedObjects: SharedObjectEditing
    let level: Int
    let text: String

    func apply(_ edit: PropertyListEdit, _ components: ArraySlice<String>, to value: PropertyList)
        throws(KeyedArchiveError) -> PropertyList
    {
        if case .data(let data) = value, !components.isEmpty {
            let edited = try KeyedArchiveEditor.editedData(
                data, Array(components), edit, sharedObjects: sharedObjects, level: level, text: text)
            return .data(edited)
        }
        guard let component = components.first else {
            guard case .append(let element) = edit, case .array(var elements) = value else {
                throw KeyedArchiveError(.invalidValue, "an edit needs a key path", at: .keyPath(text))
            }
            elements.append(element)
            return .array(elements)
        }
        let rest = components.dropFirst()
        let isLast = rest.isEmpty && !isAppend(edit)
        switch value {
        case .dictionary(var dictionary):
            if isLast {
                let existing = dictionary[component]
                switch edit {
                case .insert(let new):
                    if existing != nil { throw failure("a value already exists at that key path") }
                    dictionary[component] = new
                case .replace(let new): dictionary[component] = new
                case .remove:
                    if existing == nil { throw failure("no value to remove at that key path") }
                    dictionary.removeValue(forKey: component)
                case .append: break
                }
            } else {
                guard let child = dictionary[component] else { throw failure("no value at that key path") }
                dictionary[component] = try apply(edit, rest, to: child)
            }
            return .dictionary(dictionary)
        case .array(var elements):
            guard let index = KeyedArchiveEditor.index(component) else {
                throw failure("'\(component)' is not an index (a decimal number from 0)")
            }
            if isLast {
                switch edit {
                case .insert(let new):
                    guard index <= elements.count else { throw failure("index out of bounds") }
                    elements.insert(new, at: index)
                case .replace(let new):
                    guard index <= elements.count else { throw failure("index out of bounds") }
                    if index == elements.count { elements.append(new) } else { elements[index] = new }
                case .remove:
                    guard index < elements.count else { throw failure("no value to remove at that key path") }
                    elements.remove(at: index)
                case .append: break
                }
            } else {
                guard index < elements.count else { throw failure("no value at that key path") }
                elements[index] = try apply(edit, rest, to: elements[index])
            }
            return .array(elements)
        default:
            throw failure("no value at that key path")
        }
    }

    private func isAppend(_ edit: PropertyListEdit) -> Bool {
        if case .append = edit { return true }
        return false
    }

    private func failure(_ message: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, message, at: .keyPath(text))
    }
}
