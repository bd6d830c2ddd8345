"""The Node toolchain: Node at a pinned release plus npm packages resolved as of a date, each
environment's `node_modules` hard-linked from one content-addressed package store."""
