from pinbench.cli import app

app(prog_name="pinbench")
