"""Problems: the data model, normalisers and dataset loaders."""

from pinbench.problems.model import (
    ChangeCategory,
    ChangeType,
    EnvSpec,
    Problem,
    TestKind,
    TestSpec,
    env_spec_for,
)

__all__ = [
    "ChangeCategory",
    "ChangeType",
    "EnvSpec",
    "Problem",
    "TestKind",
    "TestSpec",
    "env_spec_for",
]
