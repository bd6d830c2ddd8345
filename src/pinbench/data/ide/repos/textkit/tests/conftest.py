import pytest

SAMPLE = """The quick brown fox jumps over the lazy dog. It was 3.5 metres away!

Nobody saw it happen.
The dog slept on."""


@pytest.fixture
def sample_text():
    """Two paragraphs, four sentences, 21 words and one number."""
    return SAMPLE


@pytest.fixture
def people():
    """Records for table tests; the second one lacks a key and has a pipe."""
    return [
        {"name": "Ada", "role": "engineer", "age": 36},
        {"name": "Grace | Hopper", "age": 85},
    ]
