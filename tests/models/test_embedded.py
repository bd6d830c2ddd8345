"""The embedded offline model for real: SmolLM2-135M from its PyPI wheel, served by llama.cpp on
127.0.0.1 and reached through the OpenAI-compatible client."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

import pytest

from pinbench.models.base import Message, Mode, ModelError, Request, Sampling
from pinbench.models.embedded import EmbeddedModel
from pinbench.models.registry import ModelOptions, open_model, parse_spec
from pinbench.models.weights import CATALOG, ensure_gguf, lookup

pytestmark = pytest.mark.integration


def test_weights_are_assembled_once_and_verified() -> None:
    weights = lookup("smollm2")
    path = ensure_gguf(weights)
    assert path.stat().st_size == weights.size
    assert path.with_suffix(".sha256").read_text() == weights.sha256
    mtime = path.stat().st_mtime_ns
    assert ensure_gguf(weights) == path and path.stat().st_mtime_ns == mtime  # not redone


def test_weights_that_do_not_match_their_digest_are_refused(tmp_path: Path) -> None:
    wrong = dataclasses.replace(lookup("smollm2"), name="smollm2-tampered", sha256="0" * 64)
    with pytest.raises(ModelError, match="sha256"):
        ensure_gguf(wrong)


def test_unknown_models_and_specs_get_one_clear_error() -> None:
    with pytest.raises(ModelError, match="unknown embedded model"):
        lookup("gpt-17")
    with pytest.raises(ModelError, match="unknown model"):
        parse_spec("nonsense:x")
    with pytest.raises(ModelError, match="needs a name"):
        parse_spec("openai")
    with pytest.raises(ModelError, match="--base-url"):
        open_model("openai:x", [], ModelOptions())
    assert "qwen2.5-coder-0.5b-instruct" in CATALOG


def test_optional_backends_name_the_extra_to_install() -> None:
    pytest.importorskip("pinbench")
    try:
        import transformers  # noqa: F401
    except ImportError:
        with pytest.raises(ModelError, match=r"pinbench\[hf\]"):
            open_model("hf:/nowhere", [], ModelOptions())


def test_smollm2_answers_chat_and_completion_requests() -> None:
    async def go() -> None:
        model = EmbeddedModel.named("smollm2", threads=1, parallel=2)
        try:
            assert model.name.startswith("embedded:smollm2-135m-instruct@b179c952")
            chat = Request(
                problem_id="p",
                messages=(Message(role="user", content="Write a Python function add(a, b)."),),
                sampling=Sampling(temperature=0.0, max_tokens=48, seed=1),
            )
            completion = Request(
                problem_id="p",
                mode=Mode.COMPLETION,
                prompt="def add(a, b):\n",
                sampling=Sampling(temperature=0.0, max_tokens=16),
            )
            first, second, again = await asyncio.gather(
                model.generate(chat), model.generate(completion), model.generate(chat)
            )
            assert first.error is None and second.error is None
            assert first.text.strip() and second.text.strip()
            assert first.completion_tokens and first.completion_tokens <= 48
            assert again.text == first.text  # greedy decoding repeats itself
        finally:
            await model.aclose()
        assert all(p.poll() is not None for p in model._processes)  # the server went too

    asyncio.run(go())


def test_replicas_share_the_requests_and_a_dead_one_is_passed_over() -> None:
    async def go() -> None:
        model = EmbeddedModel.named("smollm2", threads=1, parallel=1, replicas=2)
        try:
            assert model.replicas == 2
            pids = {p.pid for p in model._processes}
            assert len(pids) == 2
            requests = [
                Request(
                    problem_id=f"p{i}",
                    messages=(Message(role="user", content=f"Say the number {i}."),),
                    sampling=Sampling(temperature=0.0, max_tokens=8, seed=i),
                )
                for i in range(4)
            ]
            served: list[int] = []
            real = [c.generate for c in model._clients]
            for number, client in enumerate(model._clients):

                async def counted(request: Request, _n: int = number) -> object:
                    served.append(_n)
                    return await real[_n](request)

                client.generate = counted  # type: ignore[method-assign,assignment]
            answers = await asyncio.gather(*(model.generate(r) for r in requests))
            assert all(a.error is None and a.text for a in answers)
            assert sorted(served) == [0, 0, 1, 1]  # both servers answered, two each
            served.clear()
            model._processes[0].kill()
            model._processes[0].wait()
            rerouted = await model.generate(requests[0])  # the dead one is passed over
            assert rerouted.error is None and served == [1]
            model._processes[1].kill()
            model._processes[1].wait()
            lost = await model.generate(requests[0])
            assert lost.error is not None and "exited" in lost.error
        finally:
            await model.aclose()
        assert all(p.poll() is not None for p in model._processes)

    asyncio.run(go())


def test_the_default_is_one_replica_per_core() -> None:
    from pinbench.models.embedded import default_replicas

    cores = len(os.sched_getaffinity(0))
    assert default_replicas(1) == min(8, cores)
    assert default_replicas(cores) == 1
