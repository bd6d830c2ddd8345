"""A real local Ray cluster for the distributed tests: a head and a worker node (separate
raylets, object stores and worker processes on this machine), one CPU each, small object
stores, and a health check fast enough that a killed node is noticed in about a second."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

NODE = {"num_cpus": 1, "object_store_memory": 80 * 1024**2}
FAST_HEALTH_CHECK = {"health_check_period_ms": 300, "health_check_failure_threshold": 3}


@pytest.fixture(scope="session")
def cluster() -> Iterator[Any]:
    from ray.cluster_utils import Cluster

    from pinbench.execution.ray.cluster import short_temp_dir

    short_temp_dir()  # a long $TMPDIR would make Ray's socket paths too long
    head = {**NODE, "include_dashboard": False, "_system_config": FAST_HEALTH_CHECK}
    local = Cluster(initialize_head=True, head_node_args=head)
    try:
        local.add_node(**NODE)
        local.wait_for_nodes()
        yield local
    finally:
        local.shutdown()


def add_node(cluster: Any, home: Path | None = None) -> Any:
    """One more node; with `home`, a pinbench home of its own (its own environments), like a
    separate machine, sharing only uv's download cache."""
    from pinbench.core.paths import uv_cache_dir

    env = {"PINBENCH_HOME": str(home), "UV_CACHE_DIR": str(uv_cache_dir())} if home else None
    node = cluster.add_node(**NODE, env_vars=env)
    cluster.wait_for_nodes()
    return node
