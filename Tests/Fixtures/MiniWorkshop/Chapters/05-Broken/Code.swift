func broken() -> Int { undefinedName }
