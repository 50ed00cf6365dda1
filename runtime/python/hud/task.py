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
    """One runnable task: a template id plus bound arguments.

    `env` is the environment's name (a string), as on the wire and in traces.
    """

    def __init__(
        self,
        env: str,
        id: str,
        args: Optional[Dict[str, Any]] = None,
        *,
        verifier: Optional["Task"] = None,
        runtime_config: Any = None,
        slug: Optional[str] = None,
        template: Any = None,
    ) -> None:
        self.env = env
        self.id = id
        self.args = dict(args or {})
        self.runtime_config = runtime_config
        # The Template object this task came from (None for hand-made Tasks).
        self.template = template
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
    """A named, ordered group of Tasks."""

    def __init__(self, name: str, tasks: Iterable[Task] = ()) -> None:
        self.name = name
        self.tasks = list(tasks)  # type: List[Task]
        for i, task in enumerate(self.tasks):
            if not isinstance(task, Task):
                raise TypeError(
                    "Taskset '{}': item {} is a {}, not a Task (call a template to make one)".format(
                        name, i, type(task).__name__
                    )
                )

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)

    def __getitem__(self, index: int) -> Task:
        return self.tasks[index]

    def __repr__(self) -> str:
        return "Taskset({!r}, {} tasks)".format(self.name, len(self.tasks))
