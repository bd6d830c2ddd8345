"""Model specs on the command line: `embedded[:NAME]`, `openai:NAME`, `replay:PATH`,
`reference`, `hf:PATH`, `vllm:PATH`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pinbench.models.base import Model, ModelError

KINDS = ("embedded", "openai", "replay", "reference", "hf", "vllm")


@dataclass(frozen=True)
class ModelOptions:
    """What a backend may need beyond its spec."""

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 64
    requests_per_second: float | None = None
    max_retries: int = 6
    timeout: float = 120.0
    threads: int = 1
    parallel: int = 4
    replicas: int = 0  # embedded model servers on this machine; 0: one per core (default_replicas)


def parse_spec(spec: str) -> tuple[str, str]:
    kind, _, arg = spec.partition(":")
    if kind not in KINDS:
        raise ModelError(f"unknown model {spec!r}: expected one of {', '.join(KINDS)}")
    if kind in ("openai", "replay", "hf", "vllm") and not arg:
        raise ModelError(f"model {spec!r} needs a name or path after '{kind}:'")
    return kind, arg


def open_model(
    spec: str,
    ids: list[str],
    options: ModelOptions,
    reference: dict[str, str] | None = None,
) -> Model:
    """Start the backend a spec names (for `embedded`, assembling weights and starting the
    server); raises ModelError with one clear line when it cannot. `ids`: the run's items (a
    replay file's rows are matched to them); `reference`: item id -> the reference model's
    answer (the task's perfect answer)."""
    kind, arg = parse_spec(spec)
    if kind == "embedded":
        from pinbench.models.embedded import EmbeddedModel, default_replicas
        from pinbench.models.weights import DEFAULT

        return EmbeddedModel.named(
            arg or DEFAULT,
            threads=options.threads,
            parallel=options.parallel,
            replicas=options.replicas or default_replicas(options.threads),
        )
    if kind == "openai":
        from pinbench.models.openai import OpenAICompatible

        if not options.base_url:
            raise ModelError("openai models need --base-url (e.g. http://127.0.0.1:8000/v1)")
        return OpenAICompatible(
            base_url=options.base_url,
            model=arg,
            api_key_env=options.api_key_env,
            concurrency=options.concurrency,
            requests_per_second=options.requests_per_second,
            max_retries=options.max_retries,
            timeout=options.timeout,
        )
    if kind == "replay":
        from pinbench.models.replay import ReplayModel

        return ReplayModel(Path(arg), ids)
    if kind == "reference":
        from pinbench.models.reference import ReferenceModel

        return ReferenceModel(reference or {})
    from pinbench.models.local import HFModel, VLLMModel

    return HFModel(arg) if kind == "hf" else VLLMModel(arg)
