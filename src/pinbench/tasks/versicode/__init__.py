"""VersiCode's tasks: version-specific code completion and version-aware code editing, read from
VersiCode's published files or derived from any problem dataset, scored by its string metrics
and, where a test exists, by execution."""
