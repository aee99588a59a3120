// Goal: greet by name.
// TODO: use the name.
public func greet(_ name: String) -> String { "Hello" }
