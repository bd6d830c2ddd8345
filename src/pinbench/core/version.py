"""pinbench's version: recorded with every run and validation, and compared across a cluster's
nodes (read as `version.VERSION` at the moment it matters, so a test can stand another in)."""

VERSION = "0.1.0"
