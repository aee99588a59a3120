func value() -> Int { 2 }
