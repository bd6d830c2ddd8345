"""The Python toolchain: CPython interpreters found on the machine (or fetched by uv), packages
installed with uv as of the pins' era, system libraries the pins need, harness tools per
interpreter."""
