print("workshop")
