"""Problems: the data model, normalisers and dataset loaders."""

from pinbench.problems.model import (
    ChangeCategory,
    ChangeType,
    Contrast,
    EnvSpec,
    Problem,
    TestKind,
    TestSpec,
    env_spec_for,
)

__all__ = [
    "ChangeCategory",
    "ChangeType",
    "Contrast",
    "EnvSpec",
    "Problem",
    "TestKind",
    "TestSpec",
    "env_spec_for",
]
