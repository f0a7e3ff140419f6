"""Differential validation: an original program and its translation,
validated at the same time, judged by the library's dval_differential."""
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

from ._core import Client, _raise
from ._loader import get_backend
from ._validate import ValidationResult, validate

__all__ = ["Differential", "differential", "validate_pair"]

#: enum dval_differential_outcome
OUTCOMES = {1: "equivalent", 2: "differs", 3: "original_failed", 4: "translation_failed"}


@dataclass
class Differential:
    """The judgement of a translation against its original.

    Attributes:
        verdict: "equivalent", "differs", or the failed side's own verdict
            ("compile_error", "runtime_error", ...; the original's first).
        verdict_detail: the same in words.
        differences: how many differences the results have.
        diff: the first of them: ``{"path", "kind", "expected", "actual"}``
            (expected: the original's value, actual: the translation's).
        failed_side: "original", "translation" or None.
        outcome: "equivalent", "differs", "original_failed" or
            "translation_failed".
        original, translation: the two validations (from
            :func:`validate_pair`).
    """
    verdict: str
    verdict_detail: str
    differences: int
    diff: List[Dict[str, Any]]
    failed_side: Optional[str]
    outcome: str
    original: Optional[ValidationResult] = None
    translation: Optional[ValidationResult] = None

    @property
    def equivalent(self) -> bool:
        """True when both passed with the same results."""
        return self.outcome == "equivalent"


def _summary(side: Union[ValidationResult, str]) -> str:
    text = side.summary if isinstance(side, ValidationResult) else side
    if not isinstance(text, str):
        raise ValueError("a side must be a ValidationResult with a summary, or a summary text")
    return text


def differential(original: Union[ValidationResult, str],
                 translation: Union[ValidationResult, str], *,
                 ignore: Optional[List[str]] = None, abs_tolerance: float = 0.0,
                 rel_tolerance: float = 0.0, max_diffs: int = 0,
                 backend: Optional[str] = None) -> Differential:
    """Judges two validations (``dval_differential``): their results
    compared as JSON, leaving out the ``ignore`` paths ("$..generated_at")
    and accepting numbers within the tolerances.

    Raises:
        DvalInvalidArgument: a side is not a summary, or an option is not valid.
        NotImplementedError: the library has no dval_differential.
    """
    b = get_backend(backend)
    if not getattr(b, "has_differential", False):
        raise NotImplementedError("this libdaytona-validate has no dval_differential")
    opts: Dict[str, Any] = dict(ignore=ignore, abs_tolerance=float(abs_tolerance),
                                rel_tolerance=float(rel_tolerance), max_diffs=int(max_diffs))
    rc, how, text = b.differential(_summary(original), _summary(translation), opts)
    if rc:
        _raise(b, rc)
    doc = json.loads(text or "{}")
    return Differential(
        verdict=doc.get("verdict", ""), verdict_detail=doc.get("verdict_detail", ""),
        differences=int(doc.get("differences") or 0), diff=list(doc.get("diff") or []),
        failed_side=doc.get("failed_side"), outcome=OUTCOMES.get(how, str(how)),
        original=original if isinstance(original, ValidationResult) else None,
        translation=translation if isinstance(translation, ValidationResult) else None)


def validate_pair(original: Tuple[str, str], translation: Tuple[str, str], *,
                  ignore: Optional[List[str]] = None, abs_tolerance: float = 0.0,
                  rel_tolerance: float = 0.0, client: Optional[Client] = None,
                  executor: Optional[str] = None, **kwargs: Any) -> Differential:
    """Validates ``original`` and ``translation`` (each ``(profile,
    source_dir)``) at the same time on two threads of one client, then
    judges them with :func:`differential`. ``kwargs`` go to both
    :func:`validate` calls (timeout, services, seeds, ...). A side that
    fails for want of infrastructure raises its DvalError."""
    own = client is None
    c = Client(executor, backend=kwargs.get("backend")) if own else client
    assert c is not None
    got: Dict[int, Any] = {}

    def run(i: int, side: Tuple[str, str]) -> None:
        try:
            got[i] = validate(side[0], side[1], client=c, **kwargs)
        except BaseException as e:  # re-raised on the calling thread
            got[i] = e
    try:
        th = threading.Thread(target=run, args=(0, original))
        th.start()
        run(1, translation)
        th.join()
    finally:
        if own:
            c.close()
    for i in (0, 1):
        r = got[i]
        if isinstance(r, BaseException) and getattr(r, "result", None) is not None \
                and r.result.summary:
            got[i] = r.result   # it has a verdict: judged, not raised
        elif isinstance(r, BaseException):
            raise r
    return differential(got[0], got[1], ignore=ignore, abs_tolerance=abs_tolerance,
                        rel_tolerance=rel_tolerance, backend=kwargs.get("backend"))
