"""Version drift: which versions a run's programs work on. `confusion`: a failed program that
passes on another version was written for the wrong one (`pinbench drift RUN`). `matrix`: every
sample across a library's releases, its range of working versions and the model's profile
(`pinbench drift RUN --matrix`)."""

from pinbench.drift.confusion import Drifted, DriftSummary, drift, other_versions, version_key
from pinbench.drift.matrix import Compatibility, compatibility, minor_releases

__all__ = [
    "Compatibility",
    "DriftSummary",
    "Drifted",
    "compatibility",
    "drift",
    "minor_releases",
    "other_versions",
    "version_key",
]
