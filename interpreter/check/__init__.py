"""The checker: a parsed rulebook's names, types and rule read-sets, checked into a `Program`."""
