"""Serve a GGUF over llama.cpp's OpenAI-compatible HTTP server (xllamacpp), in its own process.

Run as `python -m pinbench.models._llama_server --model PATH ...`: prints one JSON line
`{"address": "http://127.0.0.1:PORT"}` once the model is loaded, then serves until its stdin
closes, so the server never outlives the pinbench process that started it."""

from __future__ import annotations

import argparse
import json
import sys


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--ctx-per-slot", type=int, default=4096)
    args = parser.parse_args()

    import xllamacpp  # type: ignore[import-untyped]

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.n_parallel = args.parallel
    params.n_ctx = args.ctx_per_slot * args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # any free port; the real one is reported below
    server = xllamacpp.Server(params)
    print(json.dumps({"address": server.listening_address}), flush=True)
    sys.stdin.read()  # returns at EOF: the parent closed the pipe or died


if __name__ == "__main__":
    main()
