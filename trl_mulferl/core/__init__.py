"""The parts of MulFeRL that no trainer owns: the algorithm's pure functions (routing, the FCO and replay equations,
the answer schema, rewards, seeding), the per-group feedback step both MulFeRL trainers call, the metric names, and the
checks every trainer runs on its arguments."""
