"""The sandbox: runs a job under an environment's interpreter with no network, a read-only root,
its own uid or cgroup and resource limits, and grades it from the proof record. Layers, each
importing only those before it: isolation, environ, jobs, grade, warm, process, probe, execute;
`inside/` holds what runs in the sandbox."""
