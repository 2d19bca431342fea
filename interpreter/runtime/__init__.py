"""The runtime, in one-way layers: state, asks, machine (frames, budgets), codecache, observe (sinks),
then `Game` as core <- evaluate <- store <- decisions <- statements <- views <- game (see core.py)."""
