"""`OpenAICompatible` against a real HTTP server (`fault_server`): routing, request bodies, and
every failure a remote model API produces, over real sockets (httpx is not mocked)."""

from __future__ import annotations

import asyncio
import email.utils
import socket
import time
from typing import Any

import pytest

from pinbench.models.base import Generation, Message, Mode, Model, ModelError, Request, Sampling
from pinbench.models.openai import OpenAICompatible, _parse
from tests.models.fault_server import Fault, FaultServer

# Small waits so that retries cost milliseconds; tests that check waits set their own.
FAST = {"api_key": "", "backoff_base": 0.01, "backoff_max": 0.05, "timeout": 5.0}


def chat(text: str, **sampling: Any) -> Request:
    messages = (Message(role="system", content="be brief"), Message(role="user", content=text))
    return Request(problem_id="p", messages=messages, sampling=Sampling(**sampling))


def ask(url: str, *requests: Request, **options: Any) -> list[Generation]:
    """Send `requests` at once through a fresh client (one per event loop) and close it."""

    async def go() -> list[Generation]:
        async with OpenAICompatible(base_url=url, model="m", **{**FAST, **options}) as model:
            return list(await asyncio.gather(*(model.generate(r) for r in requests)))

    return asyncio.run(go())


def test_chat_request_carries_messages_and_every_sampling_field(fault_server: FaultServer) -> None:
    sampling = {"temperature": 0.2, "top_p": 0.9, "top_k": 40, "max_tokens": 128, "seed": 7}
    [gen] = ask(fault_server.url, chat("first\ndef add(a, b):", stop=("\n\n", "```"), **sampling))
    assert gen.error is None
    assert "# route: chat\n# last: def add(a, b):\n# seed: 7\n# temperature: 0.2\n" in gen.text
    assert (gen.finish_reason, gen.attempts) == ("stop", 1)
    assert gen.prompt_tokens == 6  # the server counts words: "be brief first def add(a, b):"
    assert gen.completion_tokens == len(gen.text.split())
    [received] = fault_server.requests
    assert (received.method, received.path) == ("POST", "/v1/chat/completions")
    assert received.body == {
        "model": "m",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "first\ndef add(a, b):"},
        ],
        **sampling,
        "stop": ["\n\n", "```"],
        "n": 1,
    }


def test_completion_request_sends_the_prompt_and_omits_unset_fields(
    fault_server: FaultServer,
) -> None:
    request = Request(problem_id="p", mode=Mode.COMPLETION, prompt="# a\ndef f():\n")
    [gen] = ask(fault_server.url, request)
    assert gen.error is None
    assert "# route: completion\n# last: def f():\n# seed: None\n# temperature: 0.0" in gen.text
    [received] = fault_server.requests
    assert received.path == "/v1/completions"
    assert received.body["prompt"] == "# a\ndef f():\n"
    assert "messages" not in received.body
    assert "seed" not in received.body and "stop" not in received.body
    assert received.body["top_k"] == 50


def test_top_k_can_be_left_out_for_apis_that_reject_it(fault_server: FaultServer) -> None:
    [gen] = ask(fault_server.url, chat("x"), send_top_k=False)
    assert gen.error is None
    assert "top_k" not in fault_server.requests[0].body


def test_api_key_from_env_is_sent_as_bearer_and_never_shown(
    fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PINBENCH_TEST_KEY", "sk-secret-4242")
    fault_server.script(["401"], marker="denied")
    options = {"api_key": None, "api_key_env": "PINBENCH_TEST_KEY"}
    ok, denied = ask(fault_server.url, chat("fine"), chat("denied"), **options)
    assert ok.error is None
    assert {r.headers["authorization"] for r in fault_server.requests} == {"Bearer sk-secret-4242"}
    assert denied.error is not None and denied.attempts == 1
    assert denied.error_kind == "HTTP 401"
    assert "HTTP 401" in denied.error and "not retried" in denied.error
    assert "Incorrect API key provided: ***" in denied.error  # the server echoed it back
    assert "sk-secret-4242" not in denied.error
    model = OpenAICompatible(base_url=fault_server.url, model="m", api_key_env="PINBENCH_TEST_KEY")
    assert "sk-secret" not in repr(model) and "sk-secret" not in model.name
    asyncio.run(model.aclose())


def test_no_key_sends_no_authorization_header(
    fault_server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ask(fault_server.url, chat("a"), api_key=None)
    ask(fault_server.url, chat("b"), api_key="")  # empty: no key even if the variable is set
    assert all("authorization" not in r.headers for r in fault_server.requests)


def test_429_waits_as_long_as_retry_after_says(fault_server: FaultServer) -> None:
    fault_server.script({"429": 1}, marker="busy")  # Retry-After: 1
    [gen] = ask(fault_server.url, chat("busy"), backoff_max=5.0)
    assert gen.error is None and gen.attempts == 2
    first, second = fault_server.received("busy")
    assert (first.fault, second.fault) == ("429", None)
    assert second.at - first.at >= 1.0
    assert gen.seconds >= 1.0


def test_retry_after_as_an_http_date(fault_server: FaultServer) -> None:
    when = email.utils.formatdate(time.time() + 2, usegmt=True)  # 1 to 2 s away: whole seconds
    fault_server.script([Fault("503", retry_after=when)])
    [gen] = ask(fault_server.url, chat("x"), backoff_max=5.0)
    assert gen.error is None and gen.attempts == 2
    first, second = fault_server.requests
    assert 0.5 <= second.at - first.at <= 3.0  # not the 0.05 s backoff it would be without it


def test_retry_after_is_capped_by_backoff_max(fault_server: FaultServer) -> None:
    fault_server.script([Fault("429", retry_after="60")])
    started = time.monotonic()
    [gen] = ask(fault_server.url, chat("x"), backoff_max=0.2)
    assert gen.error is None and gen.attempts == 2
    assert time.monotonic() - started < 5


def test_server_errors_are_retried_until_an_answer(fault_server: FaultServer) -> None:
    fault_server.script(["500", "502", Fault("503", retry_after=None), "408"])
    [gen] = ask(fault_server.url, chat("x"))
    assert gen.error is None and gen.attempts == 5
    assert [r.fault for r in fault_server.requests] == ["500", "502", "503", "408", None]


def test_malformed_answers_are_retried(fault_server: FaultServer) -> None:
    fault_server.script(["malformed", "no_choices"])
    [gen] = ask(fault_server.url, chat("x"))
    assert gen.error is None and gen.attempts == 3
    assert "# route: chat" in gen.text


def test_dropped_and_closed_connections_are_retried(fault_server: FaultServer) -> None:
    fault_server.script(["drop", "close"])
    [gen] = ask(fault_server.url, chat("x"))
    assert gen.error is None and gen.attempts == 3


def test_a_hung_request_times_out_and_is_retried(fault_server: FaultServer) -> None:
    fault_server.script(["hang"])
    [gen] = ask(fault_server.url, chat("x"), timeout=0.3)
    assert gen.error is None and gen.attempts == 2
    assert gen.seconds >= 0.3


def test_a_server_that_always_hangs_gives_a_clear_error(fault_server: FaultServer) -> None:
    fault_server.script(["hang"] * 3)
    [gen] = ask(fault_server.url, chat("x"), timeout=0.3, max_retries=2)
    assert gen.error is not None
    assert "no answer within 0.3s" in gen.error and "gave up after 3 attempts" in gen.error
    assert gen.attempts == 3 and len(fault_server.requests) == 3
    assert gen.seconds >= 0.9


@pytest.mark.parametrize("status", ["400", "401", "403", "404", "422"])
def test_client_errors_are_not_retried(fault_server: FaultServer, status: str) -> None:
    fault_server.script([status])
    [gen] = ask(fault_server.url, chat("x"))
    assert gen.error is not None and gen.attempts == 1
    assert gen.error.startswith(f"HTTP {status} from POST {fault_server.url}/chat/completions")
    assert "not retried" in gen.error
    assert len(fault_server.requests) == 1


def test_exhausted_retries_end_in_one_line_naming_status_body_and_attempts(
    fault_server: FaultServer,
) -> None:
    fault_server.script({"500": 10})
    [gen] = ask(fault_server.url, chat("x"), max_retries=3)
    assert gen.failed and gen.error is not None
    assert gen.attempts == 4 and len(fault_server.requests) == 4
    assert "HTTP 500" in gen.error and "injected 500" in gen.error
    assert "gave up after 4 attempts" in gen.error
    assert "\n" not in gen.error


def test_an_unreachable_server_is_an_error_generation_not_an_exception() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    [gen] = ask(f"http://127.0.0.1:{port}/v1", chat("x"), max_retries=2)
    assert gen.error == (
        f"connection refused: POST http://127.0.0.1:{port}/v1/chat/completions "
        "(gave up after 3 attempts)"
    )
    assert gen.error_kind == "connection refused"
    assert gen.attempts == 3


def test_an_unknown_model_is_a_404_naming_it_not_retried() -> None:
    with FaultServer(models=("served",)) as server:
        [gen] = ask(server.url, chat("x"))  # asks for model "m"
        assert len(server.requests) == 1
    assert gen.error is not None and gen.error_kind == "HTTP 404"
    assert gen.error.startswith(f"HTTP 404 from POST {server.url}/chat/completions")
    assert "The model `m` does not exist." in gen.error and "not retried" in gen.error


def test_failures_of_one_kind_share_it_whatever_their_details(fault_server: FaultServer) -> None:
    fault_server.script(["500", "502", "500", "malformed"])
    gens = ask(fault_server.url, chat("a"), chat("b"), chat("c"), chat("d"), max_retries=0)
    kinds = sorted(str(g.error_kind) for g in gens)
    assert kinds == ["HTTP 500", "HTTP 500", "HTTP 502", "malformed answer"]


def test_a_password_in_the_base_url_is_never_shown() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    [gen] = ask(f"http://user:hunter2@127.0.0.1:{port}/v1", chat("x"), max_retries=0)
    assert gen.error is not None and "connection refused" in gen.error
    assert "hunter2" not in gen.error


def test_faults_follow_their_marker_only(fault_server: FaultServer) -> None:
    fault_server.script({"500": 2}, marker="flaky")
    flaky, steady = ask(fault_server.url, chat("flaky"), chat("steady"))
    assert (flaky.attempts, steady.attempts) == (3, 1)


def test_concurrency_bounds_requests_in_flight(fault_server: FaultServer) -> None:
    fault_server.delay = 0.1
    gens = ask(fault_server.url, *(chat(f"r{i}") for i in range(50)), concurrency=8)
    assert not any(g.failed for g in gens)
    assert fault_server.max_in_flight == 8


def test_default_concurrency_overlaps_64_requests(fault_server: FaultServer) -> None:
    fault_server.delay = 0.5
    started = time.monotonic()
    gens = ask(fault_server.url, *(chat(f"r{i}") for i in range(80)))
    assert not any(g.failed for g in gens)
    assert fault_server.max_in_flight == 64
    assert time.monotonic() - started < 2.5  # two waves of 0.5 s, not ten (at 8) or 80


def test_requests_per_second_spaces_requests(fault_server: FaultServer) -> None:
    started = time.monotonic()
    gens = ask(fault_server.url, *(chat(f"r{i}") for i in range(20)), requests_per_second=10)
    assert not any(g.failed for g in gens)
    assert time.monotonic() - started >= 1.85
    arrivals = [r.at for r in fault_server.requests]
    assert max(arrivals) - min(arrivals) >= 1.85


def test_it_is_a_model_named_after_its_endpoint(fault_server: FaultServer) -> None:
    model = OpenAICompatible(base_url=fault_server.url + "/", model="qwen", api_key="")
    assert isinstance(model, Model)
    assert model.name == f"openai:qwen@{fault_server.url}"
    assert OpenAICompatible(base_url=fault_server.url, model="q", name="mine").name == "mine"
    asyncio.run(model.aclose())


@pytest.mark.parametrize(
    "options",
    [
        {"base_url": "127.0.0.1:8000/v1"},
        {"base_url": "ftp://host/v1"},
        {"concurrency": 0},
        {"max_retries": -1},
        {"requests_per_second": 0},
    ],
)
def test_a_bad_configuration_fails_before_any_request(options: dict[str, Any]) -> None:
    with pytest.raises(ModelError):
        OpenAICompatible(**{"base_url": "http://127.0.0.1:1/v1", "model": "m", **options})


def test_null_chat_content_is_an_empty_answer() -> None:
    payload = {"choices": [{"message": {"role": "assistant", "content": None}}]}
    gen = _parse(payload, Mode.CHAT)
    assert isinstance(gen, Generation) and gen.text == ""
