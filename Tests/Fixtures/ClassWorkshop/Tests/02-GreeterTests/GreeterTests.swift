import Greeter
import Testing

@Suite("Greeter")
struct GreeterTests {
  @Test("Greets by name") func byName() { #expect(greet("Ada") == "Hello, Ada!") }
  @Test("Starts with Hello") func hello() { #expect(greet("Ada").hasPrefix("Hello")) }
}
