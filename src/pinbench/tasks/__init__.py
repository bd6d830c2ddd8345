"""Task families, one folder each (generation, versicode, ide), registered by name in
`tasks.registry`; `tasks.base` says what a task and a family are to the core."""
