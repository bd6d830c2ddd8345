"""The core types every layer shares and none depends on: the outcome vocabulary, tests,
environment specs, items and what a run records, paths, repository snapshots, dataset errors.
Nothing here knows a task, a toolchain or a backend."""
