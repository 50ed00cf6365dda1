"""Graders with the HUD SDK v6 semantics (see docs/hud-protocol.md)."""
from .base import Grader
from .bash import BashGrader
from .combine import combine, combine_all, combine_any
from .llm_judge import LLMJudgeError, LLMJudgeGrader
from .results import EvaluationResult, SubScore
from .text import contains, contains_all, contains_any, exact_match, f1_score, normalize, numeric_match

__all__ = [
    "BashGrader",
    "EvaluationResult",
    "Grader",
    "LLMJudgeError",
    "LLMJudgeGrader",
    "SubScore",
    "combine",
    "combine_all",
    "combine_any",
    "contains",
    "contains_all",
    "contains_any",
    "exact_match",
    "f1_score",
    "normalize",
    "numeric_match",
]
