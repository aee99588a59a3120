func add(_ a: Int, _ b: Int) -> Int { a - b }
func negate(_ a: Int) -> Int { -a }
