/// Conversion between seconds since 2001-01-01T00:00:00Z (the reference date of property
/// lists) and the `YYYY-MM-DDTHH:MM:SSZ` text that XML property lists use.
///
/// Written out here rather than with a date formatter: it is exact, allocation-light,
/// and identical on every platform.
package enum ISO8601Date {
    /// Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar, and from
    /// 1970-01-01 to 2001-01-01 in seconds.
    private static let secondsFrom1970To2001: Int64 = 978_307_200

    /// The largest magnitude of seconds that ``format(_:)`` renders as a calendar date
    /// (about 285 million years either side of 2001).
    static let formattableRange: Double = 9e15

    /// Formats `seconds` (since 2001) as `YYYY-MM-DDTHH:MM:SSZ`, dropping fractions of a
    /// second as Apple's XML writer does; years beyond 9999 get more digits and years
    /// before 0 a `-` sign. NaN and values beyond ``formattableRange`` render as `nan`,
    /// `inf` or `-inf`: writers that must produce a parseable date check the range first.
    package static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < formattableRange else {
            return seconds.isNaN ? "nan" : (seconds < 0 ? "-inf" : "inf")
        }
        let whole = Int64(seconds.rounded(.down))
        let unix = whole + secondsFrom1970To2001
        var days = unix / 86_400
        var secondOfDay = unix % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let hour = secondOfDay / 3600
        let minute = (secondOfDay % 3600) / 60
        let second = secondOfDay % 60
        if (0...9999).contains(year) {
            // The usual case, written as bytes: interpolating the seven fields cost ~30
            // times as much (a large share of writing a small XML document).
            return String(unsafeUninitializedCapacity: 20) { text in
                func put(_ value: Int64, width: Int, at start: Int) {
                    var rest = value
                    for index in (start..<(start + width)).reversed() {
                        text[index] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                        rest /= 10
                    }
                }
                put(year, width: 4, at: 0)
                text[4] = UInt8(ascii: "-")
                put(month, width: 2, at: 5)
                text[7] = UInt8(ascii: "-")
                put(day, width: 2, at: 8)
                text[10] = UInt8(ascii: "T")
                put(hour, width: 2, at: 11)
                text[13] = UInt8(ascii: ":")
                put(minute, width: 2, at: 14)
                text[16] = UInt8(ascii: ":")
                put(second, width: 2, at: 17)
                text[19] = UInt8(ascii: "Z")
                return 20
            }
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
            + "\(padded(hour, 2)):\(padded(minute, 2)):\(padded(second, 2))Z"
    }

    /// What ``parse(_:)`` found.
    enum Parsed: Equatable {
        /// Seconds since 2001.
        case seconds(Double)
        /// Not `YYYY-MM-DDTHH:MM:SSZ`.
        case malformed
        /// Well formed, but no such moment exists; the reason, such as
        /// `February 2023 has no day 29`.
        case impossible(String)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (also accepting a missing trailing `Z`, a `-` sign
    /// before the year, and years of more than four digits) into seconds since 2001.
    ///
    /// The date must exist in the proleptic Gregorian calendar: months 01 to 12, days up
    /// to the month's length (February 29 in leap years only), hours 00 to 23, minutes 00
    /// to 59, seconds 00 to 60 (a leap second, read as the first second of the next minute).
    static func parse<S: StringProtocol>(_ text: S) -> Parsed {
        var bytes = Array(text.utf8)
        if bytes.last == UInt8(ascii: "Z") { bytes.removeLast() }
        var negativeYear = false
        if bytes.first == UInt8(ascii: "-") {
            negativeYear = true
            bytes.removeFirst()
        }
        // The year runs up to the first '-'.
        guard let yearEnd = bytes.firstIndex(of: UInt8(ascii: "-")), yearEnd >= 4, yearEnd <= 9 else {
            return .malformed
        }
        guard var year = number(bytes[0..<yearEnd]) else { return .malformed }
        if negativeYear { year = -year }
        let rest = Array(bytes[(yearEnd + 1)...])
        // MM-DDTHH:MM:SS
        guard rest.count == 14,
            rest[2] == UInt8(ascii: "-"), rest[5] == UInt8(ascii: "T"),
            rest[8] == UInt8(ascii: ":"), rest[11] == UInt8(ascii: ":"),
            let month = number(rest[0..<2]), let day = number(rest[3..<5]),
            let hour = number(rest[6..<8]), let minute = number(rest[9..<11]),
            let second = number(rest[12..<14])
        else { return .malformed }
        guard (1...12).contains(month) else { return .impossible("there is no month \(month)") }
        let days = daysInMonth(month, of: year)
        guard (1...days).contains(day) else {
            return .impossible("\(monthNames[Int(month) - 1]) \(year) has no day \(day)")
        }
        guard hour < 24 else { return .impossible("there is no hour \(hour)") }
        guard minute < 60 else { return .impossible("there is no minute \(minute)") }
        guard second <= 60 else { return .impossible("there is no second \(second)") }
        let dayNumber = self.days(fromCivil: year, month, day)
        let unix = dayNumber * 86_400 + hour * 3600 + minute * 60 + second
        return .seconds(Double(unix - secondsFrom1970To2001))
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// The days of `month` (1 to 12) in `year` of the proleptic Gregorian calendar.
    private static func daysInMonth(_ month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for digit in digits {
            guard digit >= 0x30 && digit <= 0x39 else { return nil }
            value = value * 10 + Int64(digit - 0x30)
        }
        return digits.isEmpty ? nil : value
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(abs(value))
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    // Howard Hinnant's days-from-civil algorithms.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
