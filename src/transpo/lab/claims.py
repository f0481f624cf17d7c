"""Claims as data, and verdicts computed from them.

A :class:`Claim` is a figure someone stated: who, the claim in words, the figure
as stated, what the lab's figure is, and how far the two may differ before the
claim fails (a relative or an absolute tolerance; the edge itself still holds).
It may also name the figures a wrong claim is likely to be (e.g. "the 5% point"):
when the stated figure matches one of them, the verdict says so.
:func:`judge` sets the lab's figure against the claim and writes the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    """A stated figure and the tolerance within which a recomputed or measured figure upholds it."""

    who: str
    statement: str  # the claim in words
    claimed: float  # the figure as stated
    compared_with: str  # what the lab's figure is: a formula, a measurement
    relative_tolerance: float = 0.0  # |lab - claimed| <= this * |lab| holds
    absolute_tolerance: float = 0.0  # ... or <= this
    mistakes: tuple[tuple[str, float], ...] = ()  # (what it would be, that figure): the usual slips

    @classmethod
    def quoted(cls, who: str, statement: str, text: str, compared_with: str, **more) -> Claim:
        """A claim of a figure as it was written (``"20,991"``, ``"1.3e9"``, ``"4.47e-5"``).

        The tolerance is one unit in the last digit written: a figure rounded or
        cut short to the digits given still holds, one off by more does not.
        """
        return cls(who, statement, float(text.replace(",", "")), compared_with,
                   absolute_tolerance=last_digit_unit(text), **more)  # fmt: skip

    def tolerance(self, figure: float) -> float:
        """How far the stated figure may lie from ``figure`` and still hold."""
        return max(self.absolute_tolerance, self.relative_tolerance * abs(figure))

    def matches(self, figure: float) -> bool:
        """True if the stated figure lies within the tolerance of ``figure`` (the edge included)."""
        return abs(self.claimed - figure) <= self.tolerance(figure)


def last_digit_unit(text: str) -> float:
    """One unit in the last digit of a written figure: '20,991' -> 1, '1.3e9' -> 1e8, '4.47e-5' -> 1e-7."""
    mantissa, _, exponent = text.lower().replace(",", "").partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`judge`: the two figures, whether the claim holds, and if not how it is off."""

    claimed: float
    figure: float  # the lab's figure
    holds: bool
    mistake: str | None = None  # the slip the stated figure matches, if any

    @property
    def short(self) -> str:
        """'holds', 'that is the 5% point' or 'too high (x9.7)'."""
        if self.holds:
            return "holds"
        if self.mistake:
            return f"that is {self.mistake}"
        direction = "too high" if self.claimed > self.figure else "too low"
        return f"{direction} (x{self.claimed / self.figure:.3g})" if self.figure else direction

    @property
    def text(self) -> str:
        """'holds', 'wrong: that is the 5% point' or 'wrong: too high (x9.7)'."""
        return "holds" if self.holds else f"wrong: {self.short}"


def judge(claim: Claim, figure: float) -> Verdict:
    """Set the lab's ``figure`` against ``claim``: it holds within the tolerance; else name the slip it matches."""
    if claim.matches(figure):
        return Verdict(claim.claimed, figure, True)
    mistake = next((name for name, value in claim.mistakes if claim.matches(value)), None)
    return Verdict(claim.claimed, figure, False, mistake)
