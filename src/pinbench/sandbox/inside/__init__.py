"""Scripts that run *inside* the sandbox, under an environment's own interpreter (any CPython
from 2.7 to 3.13): `_runner.py` runs one job and writes its proof record, `_server.py` is the warm
server that imports an environment's modules once and forks a runner per job. They import
nothing from pinbench and are never imported by it: the host starts them by path."""
