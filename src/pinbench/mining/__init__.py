"""`pinbench mine`: API lifespans of a library across versions, from introspection of each
version in its own pinned environment, sandboxed (importing a library runs its code)."""
