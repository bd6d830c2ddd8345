"""Deadlines calibrated on the reference solution, not one flat limit for everything.

A problem's deadline is its reference's measured runtime times a factor, kept between a floor
(imports and machine noise) and a cap; a hanging sample then costs seconds, not minutes.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Calibration(BaseModel):
    """How a deadline was derived; recorded with every result that used it."""

    model_config = ConfigDict(frozen=True)

    reference_seconds: float
    factor: float = 10.0
    floor_seconds: float = 5.0
    cap_seconds: float = 60.0

    @property
    def deadline(self) -> float:
        scaled = self.reference_seconds * self.factor
        return round(min(self.cap_seconds, max(self.floor_seconds, scaled)), 3)


def retry_at_cap(timed_out: bool, deadline: float, cap: float) -> bool:
    """A calibrated deadline is a guess from the reference's runtime on this machine now; a
    busy machine (a torch import taking 8 s) can miss it. Only a timeout at the cap counts, so
    one at a shorter deadline is run again with the cap."""
    return timed_out and deadline < cap
