"""A run: its configuration and identity (`config`), the runner that generates, executes,
scores and stores (`runner`), and the entry point the CLI and notebooks call (`api`)."""
