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
_MAX_REPLICAS = 8  # each replica holds its own KV cache; the weights are one mmapped file


def default_replicas(threads: int) -> int:
    """One server per `threads` usable cores: one llama.cpp process at one thread per core
    nearly doubles throughput on 2 cores (bench/embedded.py --replicas) and, unlike one process
    at two threads, does not collapse when another process takes a core."""
    return max(1, min(_MAX_REPLICAS, len(os.sched_getaffinity(0)) // max(1, threads)))


class EmbeddedModel:
    """`replicas` llama.cpp servers at `threads` threads each (1 on a 2-core machine: with 2,
    any other busy process makes it collapse), each with `parallel` slots decoding in one
    batch; a request goes to the live replica with the fewest in flight."""

    def __init__(
        self, weights: Weights, *, threads: int = 1, parallel: int = 4, replicas: int = 1
    ) -> None:
        self.weights = weights
        self.name = f"embedded:{weights.name}@{weights.sha256[:12]}"
        self.gguf = ensure_gguf(weights)
        self._processes: list[subprocess.Popen[str]] = []
        self._clients: list[OpenAICompatible] = []
        try:
            for number in range(max(1, replicas)):
                self._processes.append(_spawn(self.gguf, threads, parallel, number))
            for number, process in enumerate(self._processes):
                address = _address(process, number)
                self._clients.append(
                    OpenAICompatible(
                        base_url=f"{address}/v1",
                        model=weights.name,
                        api_key="",
                        concurrency=parallel,
                        timeout=900.0,
                        name=self.name,
                    )
                )
        except BaseException:
            self.stop()
            raise
        self._in_flight = [0] * len(self._clients)

    @classmethod
    def named(cls, name: str, **kwargs: int) -> EmbeddedModel:
        return cls(lookup(name), **kwargs)

    @property
    def replicas(self) -> int:
        return len(self._clients)

    async def generate(self, request: Request) -> Generation:
        alive = [n for n, process in enumerate(self._processes) if process.poll() is None]
        if not alive:
            codes = ", ".join(str(p.returncode) for p in self._processes)
            return Generation(error=f"embedded model server exited ({codes})")
        number = min(alive, key=self._in_flight.__getitem__)
        self._in_flight[number] += 1
        try:
            return await self._clients[number].generate(request)
        finally:
            self._in_flight[number] -= 1

    async def aclose(self) -> None:
        for client in self._clients:
            await client.aclose()
        self.stop()

    def stop(self) -> None:
        for process in self._processes:
            if process.poll() is None and process.stdin is not None:
                process.stdin.close()  # the server exits at EOF on its stdin
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _log(number: int) -> Path:
    return models_dir() / ("llama-server.log" if number == 0 else f"llama-server-{number}.log")


def _spawn(gguf: Path, threads: int, parallel: int, number: int) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "pinbench.models._llama_server", "--model", str(gguf)]
    cmd += ["--threads", str(threads), "--parallel", str(parallel)]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    with _log(number).open("w") as log_file:
        return subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file, text=True, env=env
        )


def _address(process: subprocess.Popen[str], number: int) -> str:
    """The server's address from its first line, or one clear error naming its log."""
    assert process.stdout is not None
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(_START_TIMEOUT_S)
    try:
        return str(json.loads(line[0])["address"])
    except (IndexError, ValueError, KeyError, TypeError):
        process.kill()
        process.wait()
        log = _log(number)
        tail = log.read_text(errors="replace").strip().splitlines()[-3:]
        raise ModelError(
            f"the embedded model server did not start ({' '.join(tail) or 'no output'}; log: {log})"
        ) from None
