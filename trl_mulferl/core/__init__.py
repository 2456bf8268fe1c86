"""The base layer of MulFeRL, which no trainer owns and which imports no other part of `trl_mulferl`: the algorithm's
pure functions (routing, the FCO and replay equations, the answer schema, rewards, seeding), the metric names, the
run's totals and summary, credentials, collective-failure detection, and the checks every trainer runs on its
arguments. `feedback/` stands on it, and the trainers' folders on both (`tests/test_import_graph.py`)."""
