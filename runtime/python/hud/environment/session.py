"""The two-yield protocol: start a template to its prompt, grade it, close it."""
import json
import math
import traceback
from typing import Any, Callable, Dict, Optional

from ..graders.results import EvaluationResult, SubScore
from .core import Environment, Template
from .framing import INVALID_PARAMS, SERVER_ERROR, RpcError


class RunningTask:
    """A template generator suspended at its first yield, waiting for the answer."""

    def __init__(self, template: Template, args: Dict[str, Any], generator: Any) -> None:
        self.template = template
        self.args = args
        self.generator = generator

    @property
    def label(self) -> str:
        return "template '{}' (env '{}')".format(self.template.id, self.template.env.name)


def template_error(template: Template, err: BaseException, when: str) -> RpcError:
    message = "template '{}' (env '{}') raised {} while {}: {}".format(
        template.id, template.env.name, type(err).__name__, when, err
    )
    tb = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    return RpcError(SERVER_ERROR, message, {"template": template.id, "env": template.env.name, "traceback": tb})


async def start_task(env: Environment, params: Any) -> "tuple":
    """Runs the template to its first yield. Returns (RunningTask, prompt frame)."""
    if not isinstance(params, dict) or not isinstance(params.get("id"), str):
        raise RpcError(INVALID_PARAMS, "tasks.start needs params {id, args}")
    template = env.templates.get(params["id"])
    if template is None:
        raise RpcError(
            INVALID_PARAMS,
            "unknown task '{}' in environment '{}' (templates: {})".format(
                params["id"], env.name, ", ".join(env.templates) or "none"
            ),
        )
    raw_args = params.get("args")
    if raw_args is None:
        raw_args = {}
    if not isinstance(raw_args, dict):
        raise RpcError(INVALID_PARAMS, "tasks.start: args for template '{}' must be an object".format(template.id))
    try:
        template.check(raw_args)
    except TypeError as err:
        raise RpcError(INVALID_PARAMS, str(err), {"template": template.id, "env": env.name}) from None
    args = dict(raw_args)
    generator = template.open(args)
    try:
        prompt = await generator.__anext__()
    except StopAsyncIteration:
        raise RpcError(
            SERVER_ERROR,
            "template '{}' (env '{}') ended without yielding a prompt; its first yield is the prompt".format(
                template.id, env.name
            ),
            {"template": template.id, "env": env.name},
        ) from None
    except (Exception, SystemExit) as err:
        raise template_error(template, err, "starting") from None
    task = RunningTask(template, args, generator)
    try:
        frame = sendable(prompt_frame(prompt), template, "prompt")
    except RpcError:
        await close_task(task)
        raise
    return task, frame


def prompt_frame(value: Any) -> Dict[str, Any]:
    if isinstance(value, dict) and "prompt" in value:
        return plain(value)
    return {"prompt": plain(value)}


def sendable(frame: Dict[str, Any], template: Template, what: str) -> Dict[str, Any]:
    """The frame, if JSON can carry it: the SDK's server fails to send one that holds a set, bytes, an object...

    NaN and infinities are refused too, unlike the SDK, whose frames then carry
    tokens no JSON reader takes (docs/hud-protocol.md).
    """
    try:
        json.dumps(frame, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise RpcError(
            SERVER_ERROR,
            "template '{}' (env '{}') yielded a {} that JSON cannot carry ({}); yield text, finite numbers, lists and "
            "dicts only".format(template.id, template.env.name, what, err),
            {"template": template.id, "env": template.env.name},
        ) from None
    return frame


async def grade_task(task: RunningTask, answer: Any, log: Optional[Callable[[str], None]] = None) -> Dict[str, Any]:
    """Sends the answer in; the second yield becomes the grade frame. Always closes the generator."""
    try:
        try:
            result = await task.generator.asend(task.template.answer_for(answer))
        except StopAsyncIteration:
            return {"score": 0.0}
        except (Exception, SystemExit) as err:  # a template's sys.exit() must not stop the server
            raise template_error(task.template, err, "grading") from None
        return sendable(grade_frame(result, task.template), task.template, "result")
    finally:
        await close_task(task, log)


async def close_task(task: RunningTask, log: Optional[Callable[[str], None]] = None) -> None:
    """Closes the generator, so its `finally` blocks (teardown) run."""
    try:
        await task.generator.aclose()
    except (Exception, SystemExit) as err:
        if log is not None:
            log("{} failed during teardown: {}: {}".format(task.label, type(err).__name__, err))


def grade_frame(result: Any, template: Template) -> Dict[str, Any]:
    if isinstance(result, EvaluationResult):
        return plain(result.to_wire())
    if isinstance(result, (int, float)):
        return {"score": _finite(float(result), template)}
    if isinstance(result, dict) and isinstance(result.get("score"), bool):
        # The SDK's client refuses a boolean "score" in a dict (a bare `yield True` is fine: it becomes 1.0).
        raise RpcError(
            SERVER_ERROR,
            "template '{}' (env '{}') yielded a dict whose \"score\" is a boolean ({}); the HUD SDK refuses it: "
            "give a number, e.g. {{\"score\": 1.0 if ok else 0.0}}".format(template.id, template.env.name, result["score"]),
            {"template": template.id, "env": template.env.name},
        )
    if isinstance(result, dict) and _is_number(result.get("score")):
        frame = plain(result)
        frame["score"] = _finite(float(result["score"]), template)
        return frame
    # Like the SDK: any object with a numeric `reward` (e.g. the real SDK's EvaluationResult) grades by it.
    reward = getattr(result, "reward", None)
    if not isinstance(result, dict) and _is_number(reward):
        return {"score": _finite(float(reward), template)}
    raise RpcError(
        SERVER_ERROR,
        "template '{}' (env '{}') yielded an invalid result of type {}: the second yield must be a number, "
        "an EvaluationResult or a dict with a numeric \"score\"".format(template.id, template.env.name, type(result).__name__),
        {"template": template.id, "env": template.env.name},
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _finite(value: float, template: Template) -> float:
    if math.isnan(value) or math.isinf(value):
        raise RpcError(
            SERVER_ERROR,
            "template '{}' (env '{}') yielded a non-finite score ({})".format(template.id, template.env.name, value),
            {"template": template.id, "env": template.env.name},
        )
    return value


def plain(value: Any) -> Any:
    """Graders' objects to JSON-ready values; anything else is left as it is, for `sendable` to judge."""
    if isinstance(value, SubScore):
        return value.model_dump(mode="json")
    if isinstance(value, EvaluationResult):
        return plain(value.to_wire())
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
