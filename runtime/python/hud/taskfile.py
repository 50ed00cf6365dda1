"""`.json` / `.jsonl` task files: rows `{env, id, args[, verifier][, runtime_config]}`."""
import json
from typing import Any, List, Optional, Sequence, Tuple

from .task import Task


class TaskFileError(ValueError):
    """A bad task file or row; `file` and `line` (1-based, may be None) say where."""

    def __init__(self, message: str, file: str, line: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line


class RowError(object):
    """Why one row cannot run (no such environment or template, or arguments that do not fit); `line` is 1-based or None."""

    def __init__(self, message: str, line: Optional[int]) -> None:
        self.message = message
        self.line = line


def read_rows(path: str) -> List[Tuple[Any, Optional[int]]]:
    """The raw rows of a task file with their 1-based line numbers (None when unknown)."""
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".jsonl"):
        rows = []  # type: List[Tuple[Any, Optional[int]]]
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((json.loads(line), number))
            except ValueError as err:
                raise TaskFileError("{}:{}: not valid JSON: {}".format(path, number, err), path, number) from None
        return rows
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise TaskFileError("{}:{}: not valid JSON: {}".format(path, err.lineno, err.msg), path, err.lineno) from None
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        data = data["tasks"]
    if not isinstance(data, list):
        raise TaskFileError(
            "{}: expected a JSON array of task rows {{env, id, args}} (or {{\"tasks\": [...]}})".format(path), path, 1
        )
    return [(row, None) for row in data]


def load_task_file(path: str, environments: Sequence[Any]) -> List[Tuple[int, Optional[int], Task]]:
    """Binds every row of a task file to a template of `environments`.

    Returns `(row_index, line, task)` triples; row indexes are 0-based and
    count non-empty rows only (they are the `PATH::N` task references).
    A file or row that cannot be read as a task at all raises TaskFileError,
    as the SDK's loader refuses such a file. A row naming an environment or
    template that does not exist, or whose arguments do not fit its template,
    is still a task, carrying the reason in `row_error`: the SDK fails only
    that row's run (docs/sdk-compatibility.md).
    """
    out = []  # type: List[Tuple[int, Optional[int], Task]]
    for index, (row, line) in enumerate(read_rows(path)):
        where = "{}{} row {}".format(path, ":{}".format(line) if line else "", index)
        task = bind_row(row, environments, where, path, line)
        verifier_row = row.get("verifier")
        if verifier_row is not None:
            verifier = bind_row(verifier_row, environments, where + " verifier", path, line)
            if isinstance(verifier_row, dict) and verifier_row.get("verifier") is not None:
                raise TaskFileError("{}: nested verifier tasks are rejected".format(where), path, line)
            task.verifier = verifier
            if task.row_error is None and verifier.row_error is not None:
                task.row_error = RowError("verifier: " + verifier.row_error.message, line)
        out.append((index, line, task))
    return out


def bind_row(row: Any, environments: Sequence[Any], where: str, path: str, line: Optional[int]) -> Task:
    if not isinstance(row, dict):
        raise TaskFileError("{}: expected an object {{env, id, args}}, got {}".format(where, type(row).__name__), path, line)
    for key in ("env", "id"):
        if not isinstance(row.get(key), str):
            raise TaskFileError("{}: missing string field '{}'".format(where, key), path, line)
    args = row.get("args", {})
    if not isinstance(args, dict):
        raise TaskFileError("{}: 'args' must be an object".format(where), path, line)
    # A row's args are passed as given (the SDK validates the row, it does not re-bind it).
    try:
        task = Task(env=row["env"], id=row["id"], args=dict(args))
    except ValueError as err:
        raise TaskFileError("{}: {}".format(where, err), path, line) from None
    env = next((e for e in environments if e.name == row["env"]), None)
    template = env.templates.get(row["id"]) if env is not None else None
    if env is None:
        task.row_error = RowError(
            "no environment named '{}' (defined: {}); fix the row's env or pass --module with the env.py".format(
                row["env"], ", ".join(e.name for e in environments) or "none"
            ),
            line,
        )
    elif template is None:
        task.row_error = RowError(
            "environment '{}' has no template '{}' (templates: {}); fix the row's id".format(
                env.name, row["id"], ", ".join(env.templates) or "none"
            ),
            line,
        )
    else:
        task.template = template
        try:
            template.check(args)
        except TypeError as err:
            task.row_error = RowError("{}; fix the row's args to match".format(err), line)
    if row.get("runtime_config") is not None:
        task.runtime_config = row["runtime_config"]
    if isinstance(row.get("slug"), str):
        task.slug = row["slug"]
    return task

