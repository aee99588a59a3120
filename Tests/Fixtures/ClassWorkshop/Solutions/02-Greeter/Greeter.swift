// Fixed: the name is part of the greeting.
public func greet(_ name: String) -> String { "Hello, \(name)!" }
