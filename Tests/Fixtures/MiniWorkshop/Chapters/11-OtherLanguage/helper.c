int helper(void) { return 2; }
