"""Which modules a pinned distribution provides, from its installed metadata."""

from __future__ import annotations

from pathlib import Path

from pinbench.envs.python.imports import import_names, primary_modules


def _dist(env: Path, name: str, top_level: str) -> None:
    info = env / "lib" / "python3.10" / "site-packages" / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "top_level.txt").write_text(top_level)


def test_names_that_are_not_modules_are_not_imported(tmp_path: Path) -> None:
    # black's mypyc-compiled wheels list '2ec0e72aa72355e6eccf__mypyc' in top_level.txt:
    # `import 2ec0…` is a syntax error, which made the import check fail every black pin.
    _dist(tmp_path, "black", "2ec0e72aa72355e6eccf__mypyc\n_black_version\nblack\nblackd\n")
    assert import_names(tmp_path, "black==22.1.0") == ["black", "blackd"]


def test_the_primary_module_is_the_one_named_like_the_distribution(tmp_path: Path) -> None:
    _dist(tmp_path, "torch", "caffe2\nfunctorch\ntorch\ntorchgen\n")
    _dist(tmp_path, "scikit_learn", "sklearn\n")
    assert primary_modules(tmp_path, "torch==1.13.0") == ["torch"]  # caffe2 may not import
    assert primary_modules(tmp_path, "scikit-learn==1.0") == ["sklearn"]
