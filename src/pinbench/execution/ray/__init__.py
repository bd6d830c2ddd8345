"""pinbench on a Ray cluster: executions on many machines (`RayExecutor`), local models served
by actors (`ClusterModel`). The driver keeps the run store and the outcome cache; each node
builds its own environments and keeps its own warm pools. See docs/ray.md."""
