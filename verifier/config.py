"""Parameters of steps 2 and 3 of the method (skeleton, LCS, TLCS, verdict).

Units (see :mod:`neardup.verifier.units`): the skeleton window ``window`` (the paper's S) is measured in
GBK-equivalent width (CJK = 2, everything else = 1); block sizes, LCS lengths and rates are
counted in code points of the whitespace-normalised text.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

from neardup.verifier.errors import VerifierConfigError

__all__ = ["PROFILES", "VerifyConfig"]

# How ``similar`` is decided (VerifyConfig.decision).
DECISIONS = ("content", "tlcs")

# Positions are stored as C ints in the compiled implementation.
_MAX_CHARS_LIMIT = 2**31 - 2


@dataclass(frozen=True, slots=True)
class VerifyConfig:
    """How two texts are verified; immutable and validated on creation. Each field's
    docstring says what it sets."""

    window: int = 16
    """S, the skeleton window width in GBK-equivalent units (paper: 16 bytes)."""
    theta: float = 0.20
    """θ, the largest slope (SES operations per position of A) of a trustable region. 0.20
    for the web profile (the paper's Figure 3 value; its §5 choice, 0.10, cuts regions short
    on densely edited pages, see docs/verifier.md), 0.10 for ``short``."""
    resemble: float = 0.28
    """Verdict threshold: similar when the resemble rate is at least ``resemble`` or the
    contain rate at least ``contain``."""
    contain: float = 0.70
    """Verdict threshold of the contain rate (see ``resemble``)."""
    blocks: int = 20
    """Target number k of TLCS blocks; the block size is ``ceil(len(A) / blocks)``."""
    min_block_size: int = 32
    """Lower bound of the derived block size (code points), so short texts get fewer, not
    tinier, blocks."""
    block_size: int | None = None
    """A fixed block size s (code points) instead of the derived one."""
    iterative: bool = True
    """Look for further trustable regions after removing the first (reordered paragraphs)."""
    max_iterations: int = 8
    """Iterative mode stops after ``max_iterations`` regions, or when a region's TLCS is
    shorter than ``min_iteration_tlcs`` code points."""
    min_iteration_tlcs: int = 64
    """See ``max_iterations``."""
    edge_zone: float = 0.15
    """Template guard of iterative mode (the first region always counts): a further region
    lying wholly in the first ``edge_zone`` of both texts, or wholly in the last ``edge_zone``
    of both, is template text and does not count, nor does one shorter than
    ``min_extra_ratio`` times the first region. ``edge_zone=0`` disables the position
    test."""
    min_extra_ratio: float = 0.25
    """See ``edge_zone``; ``min_extra_ratio=0`` disables the size test."""
    max_d: int = 20_000
    """Hard cap on D, the skeleton SES length; a pair needing more is rejected. Bounds the
    O((N+M)D) time of pathological pairs."""
    max_chars: int = 10_000_000
    """Longest text accepted (code points, before normalisation)."""
    decision: str = "content"
    """How ``similar`` is decided: ``"content"`` (web default; :mod:`neardup.verifier.verdict`:
    word LCS resemble >= ``min_word_resemble`` and core resemble >= ``min_core_resemble``) or
    ``"tlcs"`` (the paper's rule: TLCS resemble >= ``resemble`` or contain >= ``contain``; the
    ``short`` profile)."""
    min_word_resemble: float = 0.525
    """Threshold of the content decision, with ``min_core_resemble``; fitted by grouped 5-fold
    cross-validation on the Webis dev pairs (docs/quality.md): 0.525 / 0.70 is the best-F1
    point (``web``), 0.525 / 0.80 the precision-first one (``precise``)."""
    min_core_resemble: float = 0.70
    """See ``min_word_resemble``."""
    anchor_words: int = 8
    """Shortest shared run of words that bounds the core (first and last such run)."""
    min_word_contain: float = 0.90
    """The containment path of the content decision (the paper's guideline: a page holding the
    other's key paragraphs is a near-duplicate): similar when at least ``min_word_contain`` of
    the shorter page's words lie in runs of ``contain_ngram`` words that also occur in the
    other page, in any order, and the shorter page has at least ``min_contain_words`` words.
    0.90 / 16 / 150 leave every Webis dev verdict unchanged (docs/verifier.md);
    ``min_word_contain=1.01`` turns the path off."""
    contain_ngram: int = 16
    """See ``min_word_contain``."""
    min_contain_words: int = 150
    """See ``min_word_contain``."""

    def __post_init__(self) -> None:
        def need(ok: bool, msg: str) -> None:
            if not ok:
                raise VerifierConfigError(f"VerifyConfig: {msg}")

        for name in ("window", "blocks", "min_block_size", "max_iterations", "max_d", "max_chars"):
            value = getattr(self, name)
            need(
                isinstance(value, int) and not isinstance(value, bool),
                f"{name} must be an int, got {value!r}",
            )
        need(self.window >= 2, f"window (S) must be >= 2 width units, got {self.window}; the paper uses 16")
        need(self.blocks >= 1, f"blocks (k) must be >= 1, got {self.blocks}; try 20 (web) or 5 (short)")
        need(self.min_block_size >= 1, f"min_block_size must be >= 1, got {self.min_block_size}")
        need(
            self.block_size is None
            or (isinstance(self.block_size, int) and not isinstance(self.block_size, bool) and self.block_size >= 1),
            f"block_size must be None (derived from blocks) or an int >= 1, got {self.block_size!r}",
        )
        need(
            self.decision in DECISIONS,
            f"decision must be one of {DECISIONS}, got {self.decision!r}",
        )
        need(
            isinstance(self.anchor_words, int) and not isinstance(self.anchor_words, bool)
            and self.anchor_words >= 1,
            f"anchor_words must be an int >= 1, got {self.anchor_words!r}",
        )
        for name in (
            "theta", "resemble", "contain", "edge_zone", "min_extra_ratio",
            "min_word_resemble", "min_core_resemble",
        ):
            value = getattr(self, name)
            need(
                isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value),
                f"{name} must be a finite number, got {value!r}",
            )
        need(0.0 <= self.theta < 1.0, f"theta must be in [0, 1), got {self.theta}; the paper uses 0.10")
        need(0.0 < self.resemble <= 1.0, f"resemble must be in (0, 1], got {self.resemble}; did you mean a rate like 0.28?")
        need(0.0 < self.contain <= 1.0, f"contain must be in (0, 1], got {self.contain}; did you mean a rate like 0.70?")
        for name in ("contain_ngram", "min_contain_words"):
            value = getattr(self, name)
            need(
                isinstance(value, int) and not isinstance(value, bool) and value >= 1,
                f"{name} must be an int >= 1, got {value!r}",
            )
        need(
            0.0 <= self.min_word_contain <= 1.01,
            f"min_word_contain must be in [0, 1.01] (1.01: off), got {self.min_word_contain}",
        )
        for name in ("min_word_resemble", "min_core_resemble"):
            value = getattr(self, name)
            need(0.0 <= value <= 1.0, f"{name} must be in [0, 1], got {value}")
        need(0.0 <= self.edge_zone < 0.5, f"edge_zone must be in [0, 0.5), got {self.edge_zone}")
        need(
            0.0 <= self.min_extra_ratio <= 1.0,
            f"min_extra_ratio must be in [0, 1], got {self.min_extra_ratio}",
        )
        need(isinstance(self.iterative, bool), f"iterative must be a bool, got {self.iterative!r}")
        need(self.max_iterations >= 1, f"max_iterations must be >= 1, got {self.max_iterations}")
        need(
            isinstance(self.min_iteration_tlcs, int) and self.min_iteration_tlcs >= 1,
            f"min_iteration_tlcs must be an int >= 1, got {self.min_iteration_tlcs!r}",
        )
        need(self.max_d >= 0, f"max_d must be >= 0, got {self.max_d}")
        need(
            1 <= self.max_chars <= _MAX_CHARS_LIMIT,
            f"max_chars must be in [1, {_MAX_CHARS_LIMIT}], got {self.max_chars}",
        )

    def block_size_for(self, n: int) -> int:
        """Block size s used for a text of ``n`` code points."""
        if self.block_size is not None:
            return self.block_size
        return max(self.min_block_size, -(-n // self.blocks))

    def replace(self, **changes: Any) -> VerifyConfig:
        """A copy with ``changes`` applied (and validated)."""
        return replace(self, **changes)

    @classmethod
    def profile(cls, name: str) -> VerifyConfig:
        """The named profile: ``web`` (article-length pages, best F1), ``precise`` (web pages,
        precision first) or ``short`` (microblogs)."""
        try:
            return PROFILES[name]
        except KeyError:
            raise VerifierConfigError(
                f"unknown verifier profile {name!r}; choose one of {sorted(PROFILES)}"
            ) from None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        s = "auto" if self.block_size is None else str(self.block_size)
        return (
            f"verify:S={self.window},theta={self.theta:g},resemble={self.resemble:g},"
            f"contain={self.contain:g},k={self.blocks},smin={self.min_block_size},s={s},"
            f"iterative={int(self.iterative)},iters={self.max_iterations},"
            f"min_tlcs={self.min_iteration_tlcs},edge={self.edge_zone:g},"
            f"extra={self.min_extra_ratio:g},max_d={self.max_d},decision={self.decision}"
            + (
                f",wres={self.min_word_resemble:g},core={self.min_core_resemble:g},"
                f"anchor={self.anchor_words},wcon={self.min_word_contain:g},"
                f"ngram={self.contain_ngram},cwords={self.min_contain_words}"
                if self.decision == "content"
                else ""
            )
        )


PROFILES: dict[str, VerifyConfig] = {
    # Article-length web pages: the paper's values, except theta (docs/verifier.md).
    "web": VerifyConfig(),
    # Web pages, precision first: the same rule with a stricter core (grouped 5-fold CV on the
    # Webis dev pairs: P 0.953, R 0.800; the web profile: P 0.929, R 0.877).
    "precise": VerifyConfig(min_core_resemble=0.80),
    # Microblogs (~140 characters): the method's short-text k = 5; a shorter window so that a few edits
    # in a 70-character Chinese post still leave a skeleton; small iteration floor.
    # theta stays at the paper's 0.10: no short-text data supports the web profile's 0.20.
    # The paper's TLCS decision: the content rule was fitted on web pages only.
    "short": VerifyConfig(
        window=8, theta=0.10, blocks=5, min_block_size=4, min_iteration_tlcs=16,
        decision="tlcs",
    ),
}
