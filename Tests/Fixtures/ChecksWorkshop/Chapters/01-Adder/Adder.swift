// Goal: add two numbers.
// TODO: fix the operator.
public func add(_ a: Int, _ b: Int) -> Int { a - b }
