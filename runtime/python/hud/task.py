"""Tasks and tasksets: what calling a template returns, and groups of them.

A Task is data only (environment name, template id, bound arguments, an
optional verifier Task and an optional runtime_config). Nothing of the
template runs until a server starts it, so a Task can be listed, hashed and
sent across processes freely.
"""
import hashlib
import json
from typing import Any, Dict, Iterable, Iterator, List, Optional

NESTED_VERIFIER_MESSAGE = "nested verifier tasks are rejected"


def canonical_args(args: Dict[str, Any]) -> str:
    """The one serialisation of arguments used for slugs and source hashes."""
    return json.dumps(args, sort_keys=True, default=str)


def default_slug(template_id: str, args: Dict[str, Any]) -> str:
    """The SDK's slug: the template id, plus a hash of the arguments when there are any."""
    if not args:
        return template_id
    digest = hashlib.sha1(canonical_args(args).encode("utf-8")).hexdigest()
    return "{}-{}".format(template_id, digest[:8])


def runtime_config_to_dict(config: Any) -> Optional[Dict[str, Any]]:
    """Turns a runtime_config (dict, dataclass-like or plain object) into a dict.

    Nested objects (resources, limits, compose) are converted the same way so
    that the result is JSON-serialisable.
    """
    if config is None:
        return None
    converted = _plain(config)
    if not isinstance(converted, dict):
        raise TypeError(
            "runtime_config must be a dict or an object with attributes, got {}".format(type(config).__name__)
        )
    return converted


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    for method in ("model_dump", "dict", "to_dict", "_asdict"):
        fn = getattr(value, method, None)
        if callable(fn):
            try:
                return _plain(fn())
            except TypeError:
                continue
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return {k: _plain(v) for k, v in attrs.items() if not k.startswith("_")}
    slots = getattr(type(value), "__slots__", None)
    if slots:
        return {k: _plain(getattr(value, k)) for k in slots if not k.startswith("_") and hasattr(value, k)}
    return str(value)


class Task:
    """One runnable task: a template id plus the arguments given (HUD SDK v6 `hud.eval.Task`).

    `env` is the environment's name (a string), as on the wire and in traces.
    Fields are keywords as in the SDK (`Task(env=..., id=..., args=...)`);
    the first three may also be given by position.
    """

    def __init__(
        self,
        env: Optional[str] = None,
        id: Optional[str] = None,
        args: Optional[Dict[str, Any]] = None,
        *,
        verifier: Optional["Task"] = None,
        runtime_config: Any = None,
        slug: Optional[str] = None,
        validation: Optional[List[Dict[str, Any]]] = None,
        agent_config: Optional[Dict[str, Any]] = None,
        columns: Optional[Dict[str, Any]] = None,
        template: Any = None,
    ) -> None:
        for field, value in (("env", env), ("id", id)):
            if not isinstance(value, str) or not value:
                raise ValueError("Task needs a non-empty string {}=".format(field))
        if args is not None and not isinstance(args, dict):
            raise TypeError("Task args must be a dict, got {}".format(type(args).__name__))
        self.env = env  # type: str
        self.id = id  # type: str
        self.args = dict(args or {})
        self.runtime_config = runtime_config
        self.validation = validation
        self.agent_config = agent_config
        self.columns = columns
        # The Template object this task came from (None for hand-made Tasks).
        self.template = template
        # Set by the task-file loader when a row's arguments do not fit its template (hud/taskfile.py).
        self.row_error = None  # type: Any
        if slug is not None and (not isinstance(slug, str) or not slug):
            raise ValueError("Task slug must be a non-empty string")
        self._slug = slug
        self._verifier = None  # type: Optional[Task]
        # How many tasks use this one as their verifier: a task that is a
        # verifier may not get a verifier of its own, whichever is set first.
        self._verifies = 0
        if verifier is not None:
            self.verifier = verifier

    @property
    def slug(self) -> str:
        return self._slug if self._slug is not None else default_slug(self.id, self.args)

    @slug.setter
    def slug(self, value: Optional[str]) -> None:
        self._slug = value

    @property
    def verifier(self) -> Optional["Task"]:
        return self._verifier

    @verifier.setter
    def verifier(self, value: Optional["Task"]) -> None:
        if value is not None:
            if isinstance(value, dict):
                value = Task.model_validate(value)
            if not isinstance(value, Task):
                raise TypeError(
                    "task.verifier must be a Task (call a template, e.g. verify(expected=...)), got {}".format(
                        type(value).__name__
                    )
                )
            if value is self or value.verifier is not None or self._verifies > 0:
                raise ValueError(
                    "{}: task '{}' -> verifier '{}' (a verifier cannot have a verifier of its own)".format(
                        NESTED_VERIFIER_MESSAGE, self.id, value.id
                    )
                )
        if self._verifier is not None:
            self._verifier._verifies -= 1
        self._verifier = value
        if value is not None:
            value._verifies += 1

    def model_dump(self, mode: str = "python", exclude_none: bool = False, **_: Any) -> Dict[str, Any]:
        row = {
            "env": self.env,
            "id": self.id,
            "args": self.args,
            "slug": self.slug,
            "validation": self.validation,
            "agent_config": self.agent_config,
            "columns": self.columns,
            "runtime_config": runtime_config_to_dict(self.runtime_config),
            "verifier": self.verifier.model_dump(mode, exclude_none) if self.verifier is not None else None,
        }  # type: Dict[str, Any]
        return {k: v for k, v in row.items() if v is not None} if exclude_none else row

    @classmethod
    def model_validate(cls, data: Any) -> "Task":
        if isinstance(data, Task):
            return data
        if not isinstance(data, dict):
            raise TypeError("Task.model_validate needs a dict, got {}".format(type(data).__name__))
        known = ("env", "id", "args", "slug", "validation", "agent_config", "columns", "runtime_config", "verifier")
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError("Task: unexpected field(s) {}".format(", ".join(unknown)))
        return cls(**{k: data[k] for k in known if k in data and data[k] is not None})

    def to_dict(self) -> Dict[str, Any]:
        """The row form ({env, id, args[, verifier]}) used by .json/.jsonl task files."""
        row = {"env": self.env, "id": self.id, "args": self.args}  # type: Dict[str, Any]
        if self.verifier is not None:
            row["verifier"] = self.verifier.to_dict()
        if self.runtime_config is not None:
            row["runtime_config"] = runtime_config_to_dict(self.runtime_config)
        return row

    def __repr__(self) -> str:
        return "Task(env={!r}, id={!r}, args={!r}{})".format(
            self.env, self.id, self.args, ", verifier={!r}".format(self.verifier) if self.verifier else ""
        )


class Taskset:
    """A named, ordered group of Tasks, indexed by slug as in the SDK (slugs must be unique).

    `taskset[i]` (an int) is HUD Studio's positional reference `suite[i]`;
    `taskset["slug"]` is the SDK's lookup.
    """

    def __init__(self, name: Optional[str] = None, tasks: Iterable[Task] = (), *,
                 taskset_id: Optional[str] = None) -> None:
        self.name = name or "taskset"
        self.taskset_id = taskset_id
        items = list(tasks)
        for i, task in enumerate(items):
            if not isinstance(task, Task):
                raise TypeError(
                    "Taskset '{}': item {} is a {}, not a Task (call a template to make one)".format(
                        self.name, i, type(task).__name__
                    )
                )
        by_slug = {}  # type: Dict[str, Task]
        duplicates = sorted({t.slug for t in items if sum(1 for u in items if u.slug == t.slug) > 1})
        if duplicates:
            raise ValueError("duplicate task slugs: {}".format(", ".join(duplicates)))
        for task in items:
            by_slug[task.slug] = task
        self.tasks = by_slug

    def __iter__(self) -> Iterator[Task]:
        return iter(list(self.tasks.values()))

    def __len__(self) -> int:
        return len(self.tasks)

    def __getitem__(self, key: Any) -> Task:
        if isinstance(key, int):
            return list(self.tasks.values())[key]
        return self.tasks[key]

    def __repr__(self) -> str:
        return "Taskset({!r}, {} tasks)".format(self.name, len(self.tasks))


class RuntimeConfig:
    """Row-level runtime settings (image, compose, resources, limits, ...): only the fields given are kept."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__["_fields"] = dict(fields)

    def __getattr__(self, name: str) -> Any:
        fields = self.__dict__["_fields"]
        if name in fields:
            return fields[name]
        if name.startswith("_"):
            raise AttributeError(name)
        return None

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__["_fields"][name] = value

    def model_dump(self, mode: str = "python", exclude_unset: bool = True, **_: Any) -> Dict[str, Any]:
        return {k: _plain(v) for k, v in self.__dict__["_fields"].items()}

    @classmethod
    def model_validate(cls, data: Any) -> "RuntimeConfig":
        return data if isinstance(data, cls) else cls(**dict(data))

    def __repr__(self) -> str:
        return "{}({})".format(type(self).__name__, ", ".join(
            "{}={!r}".format(k, v) for k, v in self.__dict__["_fields"].items()))


class RuntimeResources(RuntimeConfig):
    pass


class RuntimeLimits(RuntimeConfig):
    pass


class RuntimeGPU(RuntimeConfig):
    pass
