"""`--executor ray`: a run's environments and executions on the nodes of a Ray cluster.

Ray places one `NodeWorker` actor on each node and carries calls and results; which node takes
an execution depends on something Ray does not know — which nodes already hold the warm
environment — so the driver chooses:

- an environment is built on the node holding the fewest, and only there at first;
- an execution goes to a node that holds its environment, at most `slots × 4` in flight per
  node, else waits on the driver, oldest first;
- executions bound for one node in the same turn of the event loop travel in one call, at most
  two per slot (a call costs the driver ~1 ms of CPU; in a batch of 8, ~0.1 ms each): one at a
  time when the cluster keeps up, in batches when it is busy — so one driver keeps many nodes
  fed; a batch's results come back together, when its last has finished;
- when executions of one environment queue up while another node has idle slots, that node
  builds the environment too (a replica) and shares the queue;
- a node that dies loses only the executions it had in flight: each is run again on another
  node (its environment rebuilt elsewhere if no other node held it), and recorded once,
  because the runner records what `run` returns, once.

The outcome cache stays on the driver (looked up before anything is sent), so caching and
resume behave as in a local run."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray
from ray.exceptions import (
    ActorUnavailableError,
    GetTimeoutError,
    LocalRayletDiedError,
    NodeDiedError,
    ObjectLostError,
    RayActorError,
    RayTaskError,
    WorkerCrashedError,
)
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from pinbench.core import snapshots, version
from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.paths import cache_root
from pinbench.core.tests import TestSpec
from pinbench.execution.base import EnvHandle
from pinbench.execution.cache import OutcomeCache
from pinbench.execution.ray.cluster import ClusterError, NodeInfo, connect, disconnect, live_nodes
from pinbench.execution.ray.node import Job, NodeWorker, Prepared, WorkerInfo

_DEPTH = 4  # executions in flight per slot: a node always has the next batch at hand
_TRIES = 3  # nodes an execution may be lost with before it is an infrastructure outcome
_START_SECONDS = 120.0  # an actor's start: a worker process, pinbench's imports, the probe
_DISCOVER_SECONDS = 15.0  # how often nodes that joined mid-run are looked for
_LOST = (RayActorError, WorkerCrashedError, NodeDiedError, ObjectLostError, LocalRayletDiedError)


class _Lost(Exception):
    """The node did not answer for this execution (dead or unreachable): run it elsewhere."""


@dataclass(eq=False)
class _Job:
    args: Job
    done: asyncio.Future[Execution]


@dataclass(eq=False)
class _Node:
    info: NodeInfo
    actor: Any  # a NodeWorker actor handle (Ray's handles are not typed per class)
    slots: int
    isolation: str
    host: str
    in_flight: int = 0
    alive: bool = True
    keys: set[str] = field(default_factory=set)  # environments ready here
    snapshots: dict[str, asyncio.Future[None]] = field(default_factory=dict)  # repos sent
    builds: dict[EnvSpec, asyncio.Future[EnvHandle]] = field(default_factory=dict)
    outbox: list[_Job] = field(default_factory=list)  # reserved, not sent yet

    @property
    def full(self) -> bool:
        return self.in_flight >= self.slots * _DEPTH


class RayExecutor:
    """The `Executor` for a Ray cluster. `jobs`: executions at once per node (default: the
    node's CPUs), which is also each node's number of warm servers per environment."""

    name = "ray"

    def __init__(self, address: str = "auto", *, jobs: int | None = None, cache: bool = True):
        connect(address)
        self.jobs = jobs
        self._nodes: dict[str, _Node] = {}
        self._specs: dict[str, EnvSpec] = {}
        self._waiting: dict[str, deque[tuple[int, asyncio.Future[_Node]]]] = {}
        self._order = itertools.count()
        self._counts: Counter[str] = Counter()
        self._discovered = time.monotonic()
        self._tasks: set[asyncio.Future[Any]] = set()
        try:
            self._join(live_nodes())
            if not self._nodes:
                raise ClusterError("the Ray cluster has no node with CPUs to run programs on")
        except BaseException:
            self.close()
            raise
        self.cache = OutcomeCache(cache_root() / "outcomes.sqlite") if cache else None

    @property
    def nodes(self) -> list[str]:
        """Hosts of the nodes in use (alive)."""
        return [n.host for n in self._nodes.values() if n.alive]

    def in_flight(self) -> dict[str, int]:
        """Executions in flight per live node id (for progress displays and tests)."""
        return {n.info.id: n.in_flight for n in list(self._nodes.values()) if n.alive}

    # -- nodes ---------------------------------------------------------------------------

    def _spawn(self, info: NodeInfo) -> tuple[Any, int]:
        slots = self.jobs or info.cpus
        actor = NodeWorker.options(  # type: ignore[attr-defined]
            scheduling_strategy=NodeAffinitySchedulingStrategy(info.id, soft=False),
            max_concurrency=slots * _DEPTH,  # batches in flight; they share `slots` threads
        ).remote(slots)
        return actor, slots

    def _join(self, found: list[NodeInfo]) -> None:
        """Start a worker on each node and check it runs this pinbench (blocking: at start)."""
        spawned = [(*self._spawn(i), i) for i in found]
        calls = [(actor, slots, info, actor.info.remote()) for actor, slots, info in spawned]
        for actor, slots, info, call in calls:
            try:
                worker = ray.get(call, timeout=_START_SECONDS)
            except (RayActorError, RayTaskError, GetTimeoutError) as exc:
                raise ClusterError(
                    f"node {info.host} cannot start pinbench's worker ({_cause(exc)}); every "
                    "node needs pinbench installed in the Python that runs `ray start`"
                ) from None
            self._register(info, actor, slots, worker)

    async def _join_later(self, found: list[NodeInfo]) -> None:
        """Nodes that joined mid-run, started without holding up the run; one that cannot
        run this pinbench is left out."""
        for info in found:
            actor, slots = self._spawn(info)
            try:
                worker = await asyncio.wait_for(actor.info.remote(), _START_SECONDS)
                self._register(info, actor, slots, worker)
            except (RayActorError, RayTaskError, TimeoutError, ClusterError):
                with contextlib.suppress(ray.exceptions.RayError):
                    ray.kill(actor)

    def _register(self, info: NodeInfo, actor: Any, slots: int, worker: WorkerInfo) -> None:
        if worker.pinbench != version.VERSION:
            raise ClusterError(
                f"node {worker.host} runs pinbench {worker.pinbench}, this driver "
                f"{version.VERSION}: every node needs the same version"
            )
        self._nodes[info.id] = _Node(info, actor, slots, worker.isolation, worker.host)

    def _discover(self) -> None:
        if time.monotonic() - self._discovered < _DISCOVER_SECONDS:
            return
        self._discovered = time.monotonic()
        fresh = [i for i in live_nodes() if i.id not in self._nodes]
        if fresh:
            self._background(self._join_later(fresh))

    def _lose(self, node: _Node) -> None:
        """A node died: what only it held is rebuilt elsewhere for whoever waits for it."""
        if not node.alive:
            return
        node.alive = False
        self._counts["nodes_lost"] += 1
        self._discovered = 0.0
        self._discover()
        for key in node.keys:
            if self._waiting.get(key) and not self._holders(key):
                self._replicate(key)

    def _background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- environments ----------------------------------------------------------------------

    async def prepare(self, spec: EnvSpec) -> EnvHandle:
        """Built on the live node holding the fewest environments; again elsewhere if that
        node dies while building."""
        self._discover()
        while True:
            node = self._builder()
            try:
                return await self._build_on(node, spec)
            except _LOST:
                self._lose(node)

    def _builder(self) -> _Node:
        live = [n for n in self._nodes.values() if n.alive]
        if not live:
            raise ClusterError("no Ray node is left to build on")
        return min(live, key=lambda n: (len(n.builds), n.in_flight / n.slots))

    async def _build_on(self, node: _Node, spec: EnvSpec) -> EnvHandle:
        return await asyncio.shield(self._start_build(node, spec))

    def _start_build(self, node: _Node, spec: EnvSpec) -> asyncio.Future[EnvHandle]:
        """One build per (node, spec), however many ask for it at once; registered at once, so
        whoever looks next sees it under way."""
        build = node.builds.get(spec)
        if build is None:
            build = node.builds[spec] = asyncio.ensure_future(self._remote_build(node, spec))
        return build

    async def _remote_build(self, node: _Node, spec: EnvSpec) -> EnvHandle:
        try:
            prepared: Prepared = await node.actor.prepare.remote(spec)
        except RayTaskError as exc:  # pinbench failed on the node: one line, not its traceback
            raise EnvError(f"{_cause(exc)} (building on {node.host})") from None
        if prepared.handle is None:
            log = Path(prepared.log) if prepared.log else None
            raise EnvError(f"{prepared.error} (built on {node.host})", log)
        self._counts["environments_prepared"] += 1
        key = prepared.handle.key
        self._specs.setdefault(key, spec)
        node.keys.add(key)
        self._serve(node)
        return prepared.handle

    def _holders(self, key: str) -> list[_Node]:
        return [n for n in self._nodes.values() if n.alive and key in n.keys]

    def _replicate(self, key: str) -> None:
        """Build `key`'s environment on one more node, the least busy that lacks it, unless
        one is being built already."""
        spec = self._specs[key]
        if self._building(spec):
            return
        candidates = [
            n
            for n in self._nodes.values()
            if n.alive and key not in n.keys and spec not in n.builds
        ]
        if not candidates:
            if not self._holders(key):
                self._fail_waiters(key, ClusterError("no Ray node is left to run on"))
            return
        node = min(candidates, key=lambda n: n.in_flight / n.slots)
        self._counts["replicas"] += 1
        self._background(self._replica(node, self._start_build(node, spec), key))

    def _building(self, spec: EnvSpec) -> bool:
        return any(
            n.alive and not n.builds[spec].done() for n in self._nodes.values() if spec in n.builds
        )

    async def _replica(self, node: _Node, build: asyncio.Future[EnvHandle], key: str) -> None:
        try:
            handle = await build
            if handle.key != key:
                raise EnvError(
                    f"node {node.host} resolves this environment differently ({handle.key})"
                )
        except _LOST:
            self._lose(node)
            if self._waiting.get(key) and not self._holders(key):
                self._replicate(key)
        except Exception as exc:  # the waiters' outcome, unless another node can serve them
            if not self._holders(key):
                self._fail_waiters(key, exc)

    # -- executions ------------------------------------------------------------------------

    async def run(
        self,
        env: EnvHandle,
        program: str,
        test: TestSpec,
        limits: Limits,
        preload: tuple[str, ...] = (),
        fresh: bool = False,
    ) -> Execution:
        hit = None if fresh else self._cached(env.key, program, test, limits)
        if hit is not None:
            return hit
        for _ in range(_TRIES):
            try:
                node = await self._slot(env.key)
            except Exception as exc:  # no node left, or the environment could not be rebuilt
                status = Status.ENVIRONMENT_ERROR if isinstance(exc, EnvError) else None
                return _infrastructure(str(exc), limits, status or Status.HARNESS_ERROR)
            try:
                await self._ship_snapshot(node, test)
                result = await self._send(node, (env.spec, env.key, program, test, limits, preload))
            except _Lost:
                self._counts["retries"] += 1
                continue
            if not fresh:
                self._remember(node, env.key, program, test, limits, result)
            return result
        return _infrastructure(f"lost with {_TRIES} nodes in a row", limits)

    async def _ship_snapshot(self, node: _Node, test: TestSpec) -> None:
        """A repository test needs its snapshot on the node: sent once per node, before the
        first execution that needs it (nodes have their own $PINBENCH_HOME)."""
        if test.repo is None:
            return
        if test.repo not in node.snapshots:
            data = snapshots.archive_bytes(test.repo)
            node.snapshots[test.repo] = asyncio.ensure_future(
                node.actor.add_snapshot.remote(test.repo, data)
            )
        try:
            await node.snapshots[test.repo]
        except _LOST as exc:
            node.snapshots.pop(test.repo, None)
            self._lose(node)
            raise _Lost from exc

    def _send(self, node: _Node, args: Job) -> asyncio.Future[Execution]:
        """Queue one reserved execution for `node`; the queue leaves at the end of this turn."""
        job = _Job(args, asyncio.get_running_loop().create_future())
        if not node.outbox:
            asyncio.get_running_loop().call_soon(self._flush, node)
        node.outbox.append(job)
        return job.done

    def _flush(self, node: _Node) -> None:
        jobs, node.outbox = node.outbox, []
        size = node.slots * _DEPTH // 2  # two batches in flight keep a busy node fed
        for start in range(0, len(jobs), size):
            batch = jobs[start : start + size]
            self._counts["calls"] += 1
            ref = node.actor.run.remote([job.args for job in batch])
            self._background(self._deliver(node, batch, ref))

    async def _deliver(self, node: _Node, batch: list[_Job], ref: Any) -> None:
        """Each execution's result to whoever waits for it; a lost batch, to be run again."""
        try:
            results: list[Execution] = await ref
        except ActorUnavailableError:  # unreachable for now: these run elsewhere
            results = []
        except _LOST:
            self._lose(node)
            results = []
        except Exception as exc:  # pinbench failed on the node: not the programs' fault
            results = [_infrastructure(f"on {node.host}: {_cause(exc)}", j.args[4]) for j in batch]
        finally:
            node.in_flight -= len(batch)
            self._serve(node)
        for job, result in itertools.zip_longest(batch, results):
            if job.done.done():  # its run was cancelled
                continue
            if result is None:
                job.done.set_exception(_Lost())
            else:
                job.done.set_result(result)

    def _cached(self, key: str, program: str, test: TestSpec, limits: Limits) -> Execution | None:
        """An outcome recorded under any isolation level a node of this cluster runs at."""
        if self.cache is None:
            return None
        levels = sorted({n.isolation for n in self._nodes.values() if n.alive})
        return self.cache.find(key, program, test, limits, levels)

    def _remember(
        self, node: _Node, key: str, program: str, test: TestSpec, limits: Limits, result: Execution
    ) -> None:
        if self.cache is not None:
            self.cache.keep(key, program, test, limits, node.isolation, result)

    async def _slot(self, key: str) -> _Node:
        """A node holding `key`'s environment with room for one more execution (reserved)."""
        holders = [n for n in self._holders(key) if not n.full]
        if holders:
            node = min(holders, key=lambda n: n.in_flight / n.slots)
            node.in_flight += 1
            return node
        waiter: asyncio.Future[_Node] = asyncio.get_running_loop().create_future()
        queue = self._waiting.setdefault(key, deque())
        queue.append((next(self._order), waiter))
        if not self._holders(key) or self._worth_a_replica(key, len(queue)):
            self._replicate(key)
        return await waiter

    def _worth_a_replica(self, key: str, queued: int) -> bool:
        """Another node is idle and the queue would keep it busy: building there beats waiting."""
        idle = [n for n in self._nodes.values() if n.alive and n.in_flight < n.slots]
        return any(key not in n.keys and queued >= n.slots * _DEPTH for n in idle)

    def _serve(self, node: _Node) -> None:
        """Hand `node`'s free room to the oldest waiters for environments it holds."""
        while node.alive and not node.full:
            queues = [q for k in node.keys if (q := self._waiting.get(k))]
            if not queues:
                return
            queue = min(queues, key=lambda q: q[0][0])
            _, waiter = queue.popleft()
            if waiter.done():  # cancelled while waiting
                continue
            node.in_flight += 1
            waiter.set_result(node)

    def _fail_waiters(self, key: str, error: Exception) -> None:
        for _, waiter in self._waiting.pop(key, deque()):
            if not waiter.done():
                waiter.set_exception(error)

    # -- lifecycle -------------------------------------------------------------------------

    def stats(self) -> dict[str, int]:
        """The driver's counts, plus every live node's own (warm servers, builds)."""
        totals: Counter[str] = Counter(self._counts)
        totals["nodes"] = sum(n.alive for n in self._nodes.values())
        if self.cache is not None:
            totals.update(cache_hits=self.cache.hits, cache_misses=self.cache.misses)
        live = [n for n in self._nodes.values() if n.alive]
        with contextlib.suppress(ray.exceptions.RayError):
            for node_stats in ray.get([n.actor.stats.remote() for n in live], timeout=30):
                for name, value in node_stats.items():
                    if name == "warm_peak_rss_bytes":
                        totals[name] = max(totals[name], value)
                    else:
                        totals[name] += value
        return dict(totals)

    def close(self) -> None:
        """Shut every node's warm servers down, end the actors, leave the cluster."""
        live = [n for n in self._nodes.values() if n.alive]
        with contextlib.suppress(ray.exceptions.RayError):
            ray.get([n.actor.close.remote() for n in live], timeout=30)
        for node in self._nodes.values():
            with contextlib.suppress(ray.exceptions.RayError):
                ray.kill(node.actor)
        self._nodes.clear()
        cache = getattr(self, "cache", None)
        if cache is not None:
            cache.close()
        disconnect()

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _infrastructure(
    message: str, limits: Limits, status: Status = Status.HARNESS_ERROR
) -> Execution:
    return Execution(status=status, message=f"ray: {message}", limits=limits)


def _cause(exc: BaseException) -> str:
    """The underlying error of a Ray exception, in one line."""
    cause = getattr(exc, "cause", None) or exc
    text = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {text[-1] if text else ''}"
