"""Tools on top of the runtime: soak, fuzz, bench, simulate (with plots), coverage, distributed runs."""
