func divide(_ a: Int, by b: Int) -> Int {
  if b == 0 { fatalError("division by zero in the fixture") }
  return a / b
}
