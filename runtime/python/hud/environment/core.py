"""Environment, templates and capabilities: the authoring surface of env.py."""
import inspect
from typing import Any, Callable, Dict, List, Optional

from ..task import Task

# Every Environment made in this process, in creation order. The server and
# discovery use it to find environments created by sibling modules too
# (e.g. `from envs.judge import verify` without importing `judge`).
_REGISTRY = []  # type: List[Environment]


def all_environments() -> List["Environment"]:
    return list(_REGISTRY)


class Capability:
    """A daemon the environment runs (an MCP server, sshd, ...), listed by hello."""

    def __init__(self, name: str, protocol: str, url: str, params: Optional[Dict[str, Any]] = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("Capability needs a non-empty name")
        self.name = name
        self.protocol = protocol
        self.url = url
        self.params = dict(params or {})

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "protocol": self.protocol, "url": self.url, "params": self.params}

    def __repr__(self) -> str:
        return "Capability({!r}, {!r}, {!r})".format(self.name, self.protocol, self.url)


class Template:
    """A decorated async generator; calling it binds arguments and returns a Task."""

    def __init__(self, env: "Environment", fn: Callable[..., Any], id: str, description: str) -> None:
        self.env = env
        self.fn = fn
        self.id = id
        self.description = description
        self.signature = inspect.signature(fn)
        self.__name__ = getattr(fn, "__name__", id)
        self.__qualname__ = getattr(fn, "__qualname__", id)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__module__ = getattr(fn, "__module__", None)
        self.__wrapped__ = fn

    def bind(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        """Binds call arguments to the signature, defaults included.

        Raises TypeError naming the template, before any template code runs.
        """
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as err:
            params = self.signature.parameters
            takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
            unknown = [k for k in kwargs if k not in params] if not takes_any else []
            detail = "unexpected argument(s) {}".format(", ".join(repr(k) for k in unknown)) if unknown else str(err)
            raise TypeError(
                "template '{}' (env '{}'): {} (parameters: {})".format(
                    self.id, self.env.name, detail, ", ".join(params) or "none"
                )
            ) from None
        bound.apply_defaults()
        out = {}  # type: Dict[str, Any]
        for name, value in bound.arguments.items():
            kind = self.signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                out.update(value)
            elif kind is inspect.Parameter.VAR_POSITIONAL:
                if value:
                    raise TypeError(
                        "template '{}' (env '{}'): extra positional arguments for *{} cannot be named in a task; "
                        "give the template named parameters instead".format(self.id, self.env.name, name)
                    )
            else:
                out[name] = value
        return out

    def open(self, args: Dict[str, Any]) -> Any:
        """Creates the async generator for bound `args` (its body has not run yet)."""
        positional = []  # type: List[Any]
        keywords = dict(args)
        for name, param in self.signature.parameters.items():
            if param.kind is inspect.Parameter.POSITIONAL_ONLY and name in keywords:
                positional.append(keywords.pop(name))
        return self.fn(*positional, **keywords)

    def __call__(self, *args: Any, **kwargs: Any) -> Task:
        return Task(self.env.name, self.id, self.bind(*args, **kwargs), template=self)

    def __repr__(self) -> str:
        return "<template {}:{}>".format(self.env.name, self.id)


class Environment:
    """A named set of task templates plus lifecycle hooks and capabilities."""

    def __init__(self, name: str, *, version: str = "0.0.1", capabilities: Optional[List[Capability]] = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("Environment needs a non-empty name, e.g. Environment(\"workspace\")")
        self.name = name
        self.version = version
        self.capabilities = []  # type: List[Capability]
        self.templates = {}  # type: Dict[str, Template]
        self.initialize_hooks = []  # type: List[Callable[..., Any]]
        self.shutdown_hooks = []  # type: List[Callable[..., Any]]
        for cap in capabilities or []:
            self.add_capability(cap)
        _REGISTRY.append(self)

    def template(self, id: Any = None, description: str = "") -> Any:
        """Decorator: `@env.template(id="solve", description="...")` or bare `@env.template`."""
        if callable(id) and not isinstance(id, str):
            return self._register(id, None, description)

        def decorate(fn: Callable[..., Any]) -> Template:
            return self._register(fn, id, description)

        return decorate

    def _register(self, fn: Callable[..., Any], id: Optional[str], description: str) -> Template:
        fn_name = getattr(fn, "__name__", repr(fn))
        if not inspect.isasyncgenfunction(fn):
            if inspect.iscoroutinefunction(fn):
                what = "an async function without yield"
            elif inspect.isgeneratorfunction(fn):
                what = "a plain (sync) generator"
            else:
                what = "a {}".format("plain function" if inspect.isfunction(fn) else type(fn).__name__)
            raise TypeError(
                "@{}.template: '{}' must be an async generator (async def ... with two yields: prompt, then result); "
                "it is {}".format(self.name, fn_name, what)
            )
        template_id = id if id is not None else fn_name
        if not isinstance(template_id, str) or not template_id:
            raise TypeError("@{}.template: id must be a non-empty string, got {!r}".format(self.name, template_id))
        if template_id in self.templates:
            raise ValueError(
                "environment '{}' already has a template with id '{}'; give one of them another id".format(
                    self.name, template_id
                )
            )
        template = Template(self, fn, template_id, description or "")
        self.templates[template_id] = template
        return template

    def initialize(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: runs when the environment is served (may add capabilities)."""
        self.initialize_hooks.append(fn)
        return fn

    def shutdown(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: runs when the served environment stops."""
        self.shutdown_hooks.append(fn)
        return fn

    def add_capability(self, capability: Any, protocol: Optional[str] = None, url: Optional[str] = None,
                       params: Optional[Dict[str, Any]] = None) -> Capability:
        """Publishes a capability: `add_capability(Capability(...))` or `add_capability(name, protocol, url)`."""
        if not isinstance(capability, Capability):
            if protocol is None or url is None:
                raise TypeError("add_capability needs a Capability, or name, protocol and url")
            capability = Capability(capability, protocol, url, params)
        if any(c.name == capability.name for c in self.capabilities):
            raise ValueError(
                "environment '{}' already has a capability named '{}'".format(self.name, capability.name)
            )
        self.capabilities.append(capability)
        return capability

    def capability(self, name: str) -> Optional[Capability]:
        for cap in self.capabilities:
            if cap.name == name:
                return cap
        return None

    def __getattr__(self, attr: str) -> Any:
        if attr == "scenario":
            raise AttributeError(
                "Environment.scenario is the HUD SDK v5 name; v6 renamed it: use @{}.template(...) "
                "(same async generator, two yields)".format(self.__dict__.get("name", "env"))
            )
        raise AttributeError("'Environment' object has no attribute '{}'".format(attr))

    def __repr__(self) -> str:
        return "Environment({!r}, version={!r})".format(self.name, self.version)
