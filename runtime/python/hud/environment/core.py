"""Environment, templates and typed answers: the authoring surface of env.py (HUD SDK v6).

Behaviour follows the SDK (docs/sdk-compatibility.md): `Environment()` is
named "environment" by default, `@env.template(...)` takes keywords only and
needs its parentheses, a template's call binds only the arguments given
(defaults are not filled in, so slugs match the SDK's), capabilities are
replaced by name, and `env.workspace(root)` publishes a shell at serve time.
"""
import inspect
import os
from typing import Any, Callable, Dict, List, Optional

from ..capabilities import Capability
from ..task import Task

# Every Environment made in this process, in creation order. The server and
# discovery use it to find environments created by sibling modules too
# (e.g. `from envs.judge import verify` without importing `judge`).
_REGISTRY = []  # type: List[Environment]


def all_environments() -> List["Environment"]:
    return list(_REGISTRY)


class Answer:
    """What a `returns=`-typed template receives: `content` parsed to the type (or the raw string), and `raw`."""

    def __init__(self, content: Any = None, raw: str = "") -> None:
        self.content = content
        self.raw = raw

    def __class_getitem__(cls, item: Any) -> Any:
        return cls

    def model_dump(self, mode: str = "python", **_: Any) -> Dict[str, Any]:
        return {"content": self.content, "raw": self.raw}

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Answer) and (self.content, self.raw) == (other.content, other.raw)

    def __repr__(self) -> str:
        return "Answer(content={!r}, raw={!r})".format(self.content, self.raw)


def _resolve_annotation_names(func: Callable[..., Any], template_id: str, env_name: str) -> None:
    """Raises NameError, as the SDK does when it registers the template, for a text annotation naming nothing.

    The SDK reads the signature with its text annotations evaluated, so a
    name that exists only for type checkers (`if TYPE_CHECKING:` imports
    under `from __future__ import annotations`) fails the import there.
    Annotations this Python cannot evaluate for other reasons (`int | None`
    before 3.10) are left as text.
    """
    target = inspect.unwrap(func)
    for name, annotation in getattr(target, "__annotations__", {}).items():
        if not isinstance(annotation, str):
            continue
        try:
            eval(annotation, getattr(target, "__globals__", {}), None)
        except NameError as err:
            what = "its return annotation" if name == "return" else "the annotation of '{}'".format(name)
            raise NameError(
                "template '{}' (env '{}'): {} ({!r}) names nothing: {}; the HUD SDK evaluates annotations when it "
                "registers a template, so import that name at module level (not only under TYPE_CHECKING)".format(
                    template_id, env_name, what, annotation, err)
            ) from None
        except Exception:
            pass


class Template:
    """A registered async generator; calling it binds arguments and returns a Task."""

    def __init__(self, env: "Environment", func: Callable[..., Any], id: str, description: str,
                 input: Any = None, returns: Any = None) -> None:
        self.env = env
        self.id = id
        self.description = description
        self.func = func
        self.input_type = input
        self.return_type = returns
        self.sig = inspect.signature(func)
        _resolve_annotation_names(func, id, env.name)
        self.__name__ = getattr(func, "__name__", id)
        self.__qualname__ = getattr(func, "__qualname__", id)
        self.__doc__ = getattr(func, "__doc__", None)
        self.__module__ = getattr(func, "__module__", None)
        self.__wrapped__ = func

    @property
    def fn(self) -> Callable[..., Any]:
        return self.func

    @property
    def signature(self) -> inspect.Signature:
        return self.sig

    def bind(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        """A call's arguments by parameter name, as the SDK records them in the Task it makes.

        No defaults are filled in (the SDK's slugs hash exactly these), and
        `**rest` or `*extra` are recorded as one entry under their own name,
        as the SDK does: such a Task later passes them on as that one keyword
        (docs/sdk-compatibility.md). Raises TypeError naming the template
        before any template code runs.
        """
        return dict(self._signature_bind(args, kwargs).arguments)

    def check(self, args: Dict[str, Any]) -> None:
        """Raises TypeError naming the template when the task's `args` cannot be passed as keywords."""
        self._signature_bind((), args)

    def _signature_bind(self, args: Any, kwargs: Dict[str, Any]) -> inspect.BoundArguments:
        try:
            return self.sig.bind(*args, **kwargs)
        except TypeError as err:
            params = self.sig.parameters
            takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
            unknown = [k for k in kwargs if k not in params] if not takes_any else []
            detail = "unexpected argument(s) {}".format(", ".join(repr(k) for k in unknown)) if unknown else str(err)
            raise TypeError(
                "template '{}' (env '{}'): {} (parameters: {})".format(
                    self.id, self.env.name, detail, ", ".join(params) or "none"
                )
            ) from None

    def open(self, args: Dict[str, Any]) -> Any:
        """Creates the async generator for `args`, converted to their annotated types (its body has not run yet)."""
        from .convert import coerce_args

        return self.func(**coerce_args(self.func, args))

    def answer_for(self, answer: Any) -> Any:
        """The value sent into the generator: the answer itself, or an Answer parsed to `returns=`."""
        if self.return_type is None:
            return answer
        from .convert import ConversionError, validate_json, validate_python

        raw = "" if answer is None else answer
        try:
            content = validate_json(self.return_type, raw) if isinstance(raw, str) else validate_python(self.return_type, raw)
        except ConversionError:
            content = raw
        return Answer(content=content, raw=raw if isinstance(raw, str) else str(raw))

    def __call__(self, *args: Any, **kwargs: Any) -> Task:
        task = Task(env=self.env.name, id=self.id, args=self.bind(*args, **kwargs))
        task.template = self
        return task

    def __repr__(self) -> str:
        return "<template {}:{}>".format(self.env.name, self.id)


class Environment:
    """A named set of task templates plus lifecycle hooks and capabilities."""

    def __init__(self, name: str = "environment", *, version: str = "0.0.1",
                 capabilities: Optional[List[Capability]] = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("Environment needs a non-empty name, e.g. Environment(\"workspace\")")
        self.name = name
        self.version = version
        self.capabilities = []  # type: List[Capability]
        self.tasks = {}  # type: Dict[str, Template]
        self.initialize_hooks = []  # type: List[Callable[..., Any]]
        self.shutdown_hooks = []  # type: List[Callable[..., Any]]
        self._started = False
        for cap in capabilities or []:
            self.add_capability(cap)
        _REGISTRY.append(self)

    @property
    def templates(self) -> Dict[str, Template]:
        return self.tasks

    def template(self, *args: Any, id: Optional[str] = None, description: str = "", input: Any = None,
                 returns: Any = None) -> Callable[[Callable[..., Any]], Template]:
        """Decorator: `@env.template()` or `@env.template(id="solve", description="...", returns=Model)`."""
        if args:
            what = getattr(args[0], "__name__", repr(args[0]))
            raise TypeError(
                "@{0}.template needs parentheses and takes keywords only: write @{0}.template() above '{1}' "
                "(as in the HUD SDK v6)".format(self.name, what)
            )

        def decorate(fn: Callable[..., Any]) -> Template:
            return self._register(fn, id, description, input, returns)

        return decorate

    def _register(self, fn: Callable[..., Any], id: Optional[str], description: str, input: Any,
                  returns: Any) -> Template:
        fn_name = getattr(fn, "__name__", repr(fn))
        if not inspect.isasyncgenfunction(fn):
            if inspect.iscoroutinefunction(fn):
                what = "an async function without yield"
            elif inspect.isgeneratorfunction(fn):
                what = "a plain (sync) generator"
            else:
                what = "a {}".format("plain function" if inspect.isfunction(fn) else type(fn).__name__)
            raise TypeError(
                "@{}.template: '{}' must be an async generator function (async def ... with two yields: prompt, "
                "then result); it is {}".format(self.name, fn_name, what)
            )
        template_id = id or fn_name
        if template_id in self.tasks:
            raise ValueError("template {!r} already registered on env {!r}; give one of them another id".format(
                template_id, self.name))
        template = Template(self, fn, template_id, description or "", input, returns)
        self.tasks[template_id] = template
        return template

    def initialize(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: runs once before the environment serves (may publish capabilities)."""
        self.initialize_hooks.append(fn)
        return fn

    def shutdown(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: runs when the served environment stops (in reverse order of registration)."""
        self.shutdown_hooks.append(fn)
        return fn

    def add_capability(self, cap: Capability) -> None:
        """Publishes a capability, replacing one of the same name (a re-run hook overwrites its stale address)."""
        if not isinstance(cap, Capability):
            raise TypeError("add_capability: expected Capability, got {!r}".format(cap))
        if not cap.url:
            raise ValueError(
                "capability {!r} has no url; start the service in an @env.initialize hook and publish its "
                "concrete address".format(cap.name))
        self.capabilities = [c for c in self.capabilities if c.name != cap.name] + [cap]

    def capability(self, name: str) -> Capability:
        for cap in self.capabilities:
            if cap.name == name:
                return cap
        raise KeyError("unknown capability: {!r}".format(name))

    def workspace(self, root: Any, *, name: str = "shell", track_files: Optional[bool] = None, **kwargs: Any) -> Any:
        """A working directory served as shell capability `name` (created when the environment serves).

        When HUD Studio's engine serves the environment, the agent works in a
        folder of its own (docs/sdk-compatibility.md); the workspace is that
        folder, so files prepared under `ws.root` are where the agent finds them.
        """
        from .workspace import AGENT_WORKSPACE_ENV, Workspace

        ws = Workspace(os.environ.get(AGENT_WORKSPACE_ENV) or root, **kwargs)

        async def _workspace_up() -> None:
            await ws.start()
            self.add_capability(ws.capability(name))

        async def _workspace_down() -> None:
            await ws.stop()

        self.initialize(_workspace_up)
        self.shutdown(_workspace_down)
        return ws

    async def start(self) -> None:
        """Runs the initialize hooks once (the server does this before it listens)."""
        if self._started:
            return
        self._started = True
        for hook in self.initialize_hooks:
            result = hook()
            if inspect.isawaitable(result):
                await result

    async def stop(self) -> None:
        """Runs the shutdown hooks in reverse order, best effort."""
        for hook in reversed(self.shutdown_hooks):
            try:
                result = hook()
                if inspect.isawaitable(result):
                    await result
            except Exception:
                pass
        self._started = False

    def __getattr__(self, attr: str) -> Any:
        if attr == "scenario":
            raise AttributeError(
                "Environment.scenario is the HUD SDK v5 name; v6 renamed it: use @{}.template(...) "
                "(same async generator, two yields)".format(self.__dict__.get("name", "env"))
            )
        if attr == "gym":
            # The SDK has it; a bare AttributeError would read as a typo in the user's env.py.
            raise AttributeError(
                "Environment.gym (robot and gym simulations) is not covered by HUD Studio's bundled runtime: "
                "install hud-python in the environment's image and run with --sdk auto, so that its own SDK "
                "serves the environment (HUD Studio's docs/sdk-compatibility.md)"
            )
        raise AttributeError("'Environment' object has no attribute '{}'".format(attr))

    def __repr__(self) -> str:
        return "Environment({!r}, version={!r})".format(self.name, self.version)
