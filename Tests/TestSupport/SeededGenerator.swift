/// The tests' one seeded random-number generator (SplitMix64): the same seed gives the same
/// numbers on every run and platform, so that a failure found by a property test replays.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The generator's whole state: a copy resumes where this one is.
    public private(set) var state: UInt64

    /// A generator whose sequence `seed` picks.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`, for a positive `bound` (a slight bias toward small numbers
    /// is of no matter to tests).
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
