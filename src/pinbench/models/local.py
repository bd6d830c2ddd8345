"""Local weights through optional extras: `hf:PATH` (transformers, CPU or GPU) and `vllm:PATH`
(GPU). Neither library is needed by the default install; asking for one that is missing is a
clear error naming the extra to install."""

from __future__ import annotations

import asyncio
import importlib
import time
from typing import Any

from pinbench.models.base import Generation, Mode, ModelError, Request


def _require(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelError(
            f"{module} is not installed: install pinbench with the `{extra}` extra "
            f"(uv sync --extra {extra}, or pip install 'pinbench[{extra}]')"
        ) from None


class HFModel:
    """transformers' generate, one request at a time in a worker thread (a lock keeps the
    model single-threaded: it is not safe to share between concurrent generate calls)."""

    def __init__(self, path: str) -> None:
        transformers = _require("transformers", "hf")
        self.name = f"hf:{path}"
        self._tokenizer = transformers.AutoTokenizer.from_pretrained(path)
        self._model = transformers.AutoModelForCausalLM.from_pretrained(path)
        self._lock = asyncio.Lock()

    async def generate(self, request: Request) -> Generation:
        async with self._lock:
            try:
                return await asyncio.to_thread(self._generate, request)
            except Exception as exc:  # a failed generation is an outcome, not a crash
                return Generation(error=f"{type(exc).__name__}: {exc}")

    def _generate(self, request: Request) -> Generation:
        torch = importlib.import_module("torch")
        started = time.monotonic()
        if request.mode is Mode.CHAT:
            messages = [m.model_dump() for m in request.messages]
            prompt = self._tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        else:
            prompt = request.prompt
        inputs = self._tokenizer(prompt, return_tensors="pt")
        sampling = request.sampling
        if sampling.seed is not None:
            torch.manual_seed(sampling.seed)
        greedy = sampling.temperature <= 0
        output = self._model.generate(
            **inputs,
            max_new_tokens=sampling.max_tokens,
            do_sample=not greedy,
            **({} if greedy else {"temperature": sampling.temperature}),
            top_p=sampling.top_p,
            top_k=sampling.top_k,
        )
        new = output[0][inputs["input_ids"].shape[1] :]
        text = self._tokenizer.decode(new, skip_special_tokens=True)
        for stop in sampling.stop:
            text = text.split(stop, 1)[0]
        return Generation(
            text=text,
            finish_reason="length" if len(new) >= sampling.max_tokens else "stop",
            prompt_tokens=int(inputs["input_ids"].shape[1]),
            completion_tokens=len(new),
            seconds=time.monotonic() - started,
        )

    async def aclose(self) -> None:
        return None


class VLLMModel:
    """vLLM's offline engine; requests are answered one call at a time in a worker thread."""

    def __init__(self, path: str) -> None:
        vllm = _require("vllm", "vllm")
        self.name = f"vllm:{path}"
        self._vllm = vllm
        self._llm = vllm.LLM(model=path)
        self._lock = asyncio.Lock()

    async def generate(self, request: Request) -> Generation:
        async with self._lock:
            try:
                return await asyncio.to_thread(self._generate, request)
            except Exception as exc:
                return Generation(error=f"{type(exc).__name__}: {exc}")

    def _generate(self, request: Request) -> Generation:
        started = time.monotonic()
        s = request.sampling
        params = self._vllm.SamplingParams(
            temperature=s.temperature,
            top_p=s.top_p,
            top_k=s.top_k,
            max_tokens=s.max_tokens,
            seed=s.seed,
            stop=list(s.stop) or None,
        )
        if request.mode is Mode.CHAT:
            messages = [m.model_dump() for m in request.messages]
            outputs = self._llm.chat(messages, params, use_tqdm=False)
        else:
            outputs = self._llm.generate([request.prompt], params, use_tqdm=False)
        completion = outputs[0].outputs[0]
        return Generation(
            text=completion.text,
            finish_reason=completion.finish_reason,
            completion_tokens=len(completion.token_ids),
            seconds=time.monotonic() - started,
        )

    async def aclose(self) -> None:
        return None
