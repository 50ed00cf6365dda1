"""LLMJudgeGrader: rubric grading through an OpenAI-compatible chat endpoint.

Each criterion gets its own MET/UNMET judgement (all in parallel). Positive
weights are requirements; negative weights are mistakes, MET when the answer
makes them. Score = (sum of met weights) / (sum of positive weights),
clamped to [0, 1]; with no positive criterion the score starts at 1.0 and met
mistakes subtract their share of the total negative weight.
"""
import asyncio
import json
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .base import Grader
from .results import SubScore

GATEWAY_ENV = "HUD_GATEWAY_URL"
API_KEY_ENV = "HUD_API_KEY"
REQUEST_TIMEOUT_S = 120.0
_VERDICT = re.compile(r"\b(UNMET|MET)\b")

_SYSTEM = (
    "You are a strict grader. You judge ONE criterion against an answer. "
    "Reply with a JSON object {\"verdict\": \"MET\" or \"UNMET\", \"reason\": \"one sentence\"} and nothing else."
)


class LLMJudgeError(RuntimeError):
    pass


class LLMJudgeGrader(Grader):
    name = "LLMJudgeGrader"

    @classmethod
    async def compute_score(  # type: ignore[override]
        cls,
        answer: Any = None,
        criteria: Optional[Sequence[Any]] = None,
        question: str = "",
        model: str = "claude-haiku-4-5",
        **_: Any
    ) -> Tuple[float, Dict[str, Any]]:
        rubric = parse_criteria(criteria)
        gateway, key = gateway_settings()
        judgements = await asyncio.gather(
            *[
                asyncio.to_thread(_judge_one, gateway, key, model, question, answer, requirement, weight)
                for requirement, weight in rubric
            ]
        )
        return combine_judgements(judgements), {"model": model, "criteria": judgements}


def parse_criteria(criteria: Optional[Sequence[Any]]) -> List[Tuple[str, float]]:
    if criteria is None or isinstance(criteria, (str, bytes)) or len(criteria) == 0:
        raise ValueError(
            "LLMJudgeGrader needs criteria: a non-empty list of strings or (requirement, weight) tuples"
        )
    out = []  # type: List[Tuple[str, float]]
    for i, item in enumerate(criteria):
        if isinstance(item, str):
            out.append((item, 1.0))
        elif isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str):
            try:
                weight = float(item[1])
            except (TypeError, ValueError):
                raise ValueError("LLMJudgeGrader criterion {}: weight {!r} is not a number".format(i, item[1])) from None
            out.append((item[0], weight))
        else:
            raise ValueError(
                "LLMJudgeGrader criterion {}: expected a string or a (requirement, weight) tuple, got {!r}".format(i, item)
            )
    return out


def gateway_settings() -> Tuple[str, str]:
    gateway = os.environ.get(GATEWAY_ENV, "").strip()
    key = os.environ.get(API_KEY_ENV, "").strip()
    missing = [name for name, value in ((GATEWAY_ENV, gateway), (API_KEY_ENV, key)) if not value]
    if missing:
        raise LLMJudgeError(
            "LLMJudgeGrader needs {} in the grading environment (an OpenAI-compatible gateway URL and its key); "
            "missing: {}. Declare them as this environment's secrets.".format(
                " and ".join((GATEWAY_ENV, API_KEY_ENV)), ", ".join(missing)
            )
        )
    return gateway.rstrip("/"), key


def combine_judgements(judgements: List[Dict[str, Any]]) -> float:
    positive = sum(j["weight"] for j in judgements if j["weight"] > 0)
    negative = sum(-j["weight"] for j in judgements if j["weight"] < 0)
    met_positive = sum(j["weight"] for j in judgements if j["weight"] > 0 and j["met"])
    met_penalty = sum(-j["weight"] for j in judgements if j["weight"] < 0 and j["met"])
    if positive > 0:
        score = (met_positive - met_penalty) / positive
    else:
        score = 1.0 - (met_penalty / negative if negative > 0 else 0.0)
    return min(1.0, max(0.0, score))


def _judge_one(gateway: str, key: str, model: str, question: str, answer: Any, requirement: str, weight: float) -> Dict[str, Any]:
    if weight < 0:
        ask = "Does the answer make this MISTAKE? MET means the mistake IS present.\nMistake: {}".format(requirement)
    else:
        ask = "Does the answer satisfy this requirement? MET means it does.\nRequirement: {}".format(requirement)
    parts = []
    if question:
        parts.append("Question:\n{}".format(question))
    parts.append("Answer:\n{}".format(answer if isinstance(answer, str) else json.dumps(answer, default=str)))
    parts.append(ask)
    body = {
        "model": model,
        "temperature": 0,
        "messages": [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}],
    }
    reply = _post(gateway + "/chat/completions", key, body)
    verdict, reason = _read_verdict(reply)
    return {
        "requirement": requirement,
        "weight": weight,
        "verdict": verdict,
        "met": verdict == "MET",
        "reason": reason,
    }


def _post(url: str, key: str, body: Dict[str, Any]) -> Dict[str, Any]:
    # Imported here: urllib.request pulls in http.client and email, about a fifth
    # of the SDK's import time, which every server start would otherwise pay.
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + key},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            payload = response.read()
    except urllib.error.HTTPError as err:
        detail = err.read(2000).decode("utf-8", errors="replace")
        raise LLMJudgeError("LLM judge gateway {} answered HTTP {}: {}".format(url, err.code, detail)) from None
    except (urllib.error.URLError, OSError) as err:
        raise LLMJudgeError("LLM judge gateway {} unreachable: {}".format(url, getattr(err, "reason", err))) from None
    try:
        return json.loads(payload.decode("utf-8"))
    except ValueError:
        raise LLMJudgeError("LLM judge gateway {} did not answer JSON: {!r}".format(url, payload[:200])) from None


def _read_verdict(reply: Dict[str, Any]) -> Tuple[Optional[str], str]:
    try:
        content = reply["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LLMJudgeError("LLM judge reply has no choices[0].message.content: {}".format(json.dumps(reply)[:300])) from None
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    text = str(content)
    try:
        parsed = json.loads(text.strip().strip("`").replace("json\n", "", 1))
        if isinstance(parsed, dict) and str(parsed.get("verdict", "")).upper() in ("MET", "UNMET"):
            return str(parsed["verdict"]).upper(), str(parsed.get("reason", ""))
    except ValueError:
        pass
    found = _VERDICT.search(text.upper())
    # An unreadable verdict counts as not MET: no credit, and no penalty.
    return (found.group(1) if found else None), text
