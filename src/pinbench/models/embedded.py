"""The offline default: a GGUF from PyPI wheels served by llama.cpp on 127.0.0.1, reached
through the same OpenAI-compatible client as any remote endpoint (one client code path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from pinbench.models.base import Generation, ModelError, Request
from pinbench.models.openai import OpenAICompatible
from pinbench.models.weights import Weights, ensure_gguf, lookup, models_dir

_START_TIMEOUT_S = 180.0


class EmbeddedModel:
    """llama.cpp at `threads` threads (1 on a 2-core machine: with 2, any other busy process
    makes it collapse) with `parallel` slots decoding in one batch."""

    def __init__(self, weights: Weights, *, threads: int = 1, parallel: int = 4) -> None:
        self.weights = weights
        self.name = f"embedded:{weights.name}@{weights.sha256[:12]}"
        self.gguf = ensure_gguf(weights)
        self._process, address = _start_server(self.gguf, threads, parallel)
        self._client = OpenAICompatible(
            base_url=f"{address}/v1",
            model=weights.name,
            api_key="",
            concurrency=parallel,
            timeout=900.0,
            name=self.name,
        )

    @classmethod
    def named(cls, name: str, **kwargs: int) -> EmbeddedModel:
        return cls(lookup(name), **kwargs)

    async def generate(self, request: Request) -> Generation:
        if self._process.poll() is not None:
            return Generation(error=f"embedded model server exited ({self._process.returncode})")
        return await self._client.generate(request)

    async def aclose(self) -> None:
        await self._client.aclose()
        self.stop()

    def stop(self) -> None:
        if self._process.poll() is None and self._process.stdin is not None:
            self._process.stdin.close()  # the server exits at EOF on its stdin
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()


def _start_server(gguf: Path, threads: int, parallel: int) -> tuple[subprocess.Popen[str], str]:
    log = models_dir() / "llama-server.log"
    cmd = [sys.executable, "-m", "pinbench.models._llama_server", "--model", str(gguf)]
    cmd += ["--threads", str(threads), "--parallel", str(parallel)]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    with log.open("w") as log_file:
        process = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file, text=True, env=env
        )
    assert process.stdout is not None
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(_START_TIMEOUT_S)
    try:
        return process, str(json.loads(line[0])["address"])
    except (IndexError, ValueError, KeyError, TypeError):
        process.kill()
        process.wait()
        tail = log.read_text(errors="replace").strip().splitlines()[-3:]
        raise ModelError(
            f"the embedded model server did not start ({' '.join(tail) or 'no output'}; log: {log})"
        ) from None
