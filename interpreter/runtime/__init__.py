"""The runtime, in one-way layers: state, asks, machine (frames, budgets), closures, game."""
