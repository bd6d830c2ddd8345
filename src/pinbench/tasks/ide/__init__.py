"""The IDE scenarios (doc, fix, generate, test, workspace) on real repositories: building a
repository's environment and baseline, collecting cases, and the five scenarios' tasks."""
