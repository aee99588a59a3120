/// A tally counter: each tap counts one, and reset goes back to zero.
public struct Counter: Sendable {
  public private(set) var value = 0

  public init() {}

  public mutating func tap() { value += 1 }

  public mutating func reset() { value = 0 }
}
