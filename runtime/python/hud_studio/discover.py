"""Executes an env.py (or binds a .json/.jsonl task file) and reports its exact tasks as JSON.

    python3 -m hud_studio.discover PATH [--module ENV_PY] --json

Lives outside the `hud` package so that shipping it never shadows a real SDK.
Prints one JSON object on stdout: {file, tasks, environments, error}; exits 1
when the module (or task file) has an error, which is then described in
`error` with the file and line inside the user's code.
"""
import argparse
import contextlib
import hashlib
import inspect
import json
import os
import re
import sys
import traceback
from typing import Any, Dict, List, Optional

from hud.environment.core import Environment, Template, all_environments
from hud.environment.loader import LoadError, import_env_module
from hud.environment.schema import describe_templates
from hud.task import Task, Taskset, canonical_args, runtime_config_to_dict
from hud.taskfile import TaskFileError, load_task_file

_DEF = re.compile(r"\s*(async\s+)?def\s")


def discover(path: str, module_path: Optional[str] = None) -> Dict[str, Any]:
    """The discovery report for `path` (never raises for problems in user code)."""
    report = {"file": path, "tasks": [], "environments": [], "error": None}  # type: Dict[str, Any]
    target = os.path.abspath(path)
    is_task_file = target.endswith((".json", ".jsonl"))
    user_file = os.path.abspath(module_path) if module_path else (
        os.path.join(os.path.dirname(target), "env.py") if is_task_file else target
    )
    try:
        # User code may print at import time; stdout is reserved for the report.
        with contextlib.redirect_stdout(sys.stderr):
            module, envs = import_env_module(user_file)
            if is_task_file:
                known = envs + [e for e in all_environments() if e not in envs]
                for index, _line, task in load_task_file(target, known):
                    report["tasks"].append(describe_task(task, str(index)))
            else:
                report["tasks"] = module_tasks(module)
        report["environments"] = [describe_environment(e) for e in envs]
    except TaskFileError as err:
        report["error"] = {"message": err.message, "file": path, "line": err.line, "traceback": None}
    except LoadError as err:
        report["error"] = {"message": str(err), "file": path, "line": None, "traceback": None}
    except BaseException as err:  # user code may raise anything, SystemExit included
        if isinstance(err, KeyboardInterrupt):
            raise
        report["error"] = describe_exception(err, user_file, path if not is_task_file else user_file)
    if report["error"] is not None:
        report["tasks"] = []
    return report


def module_tasks(module: Any) -> List[Dict[str, Any]]:
    """Tasks held by module-level variables, named by their task references."""
    out = []  # type: List[Dict[str, Any]]
    for name, value in vars(module).items():
        if name.startswith("__"):
            continue
        if isinstance(value, Task):
            out.append(describe_task(value, name))
        elif isinstance(value, (list, tuple, Taskset)):
            items = list(value)
            for i, item in enumerate(items):
                if isinstance(item, Task):
                    out.append(describe_task(item, "{}[{}]".format(name, i)))
    return out


def describe_task(task: Task, ref: Optional[str]) -> Dict[str, Any]:
    template = task.template if isinstance(task.template, Template) else _find_template(task)
    fn = template.fn if template is not None else None
    source = _source(fn)
    row = {
        "env": task.env,
        "id": task.id,
        "args": json.loads(json.dumps(task.args, default=str)),
        "slug": task.slug,
        "description": template.description if template is not None else "",
        "runtime_config": json.loads(json.dumps(runtime_config_to_dict(task.runtime_config), default=str)),
        "source": source,
        "source_hash": hashlib.sha256((source + "\n" + canonical_args(task.args)).encode("utf-8")).hexdigest(),
        "line": _def_line(fn),
        "source_file": _source_file(fn),
    }  # type: Dict[str, Any]
    if ref is not None:
        row = dict([("ref", ref)] + list(row.items()))
        row["verifier"] = describe_task(task.verifier, None) if task.verifier is not None else None
        failure = getattr(task, "row_error", None)
        row["row_error"] = {"message": failure.message, "line": failure.line} if failure is not None else None
    return row


def describe_environment(env: Environment) -> Dict[str, Any]:
    return {"name": env.name, "version": env.version, "templates": describe_templates(env)}


def describe_exception(err: BaseException, user_file: str, shown_file: str) -> Dict[str, Any]:
    file = shown_file
    line = None  # type: Optional[int]
    if isinstance(err, SyntaxError) and err.filename:
        file = shown_file if os.path.abspath(err.filename) == user_file else os.path.abspath(err.filename)
        line = err.lineno
    else:
        frames = traceback.extract_tb(err.__traceback__)
        inside = [f for f in frames if os.path.abspath(f.filename) == user_file]
        if inside:
            line = inside[-1].lineno
        else:
            folder = os.path.dirname(user_file)
            near = [f for f in frames if os.path.abspath(f.filename).startswith(folder + os.sep)]
            if near:
                file, line = os.path.abspath(near[-1].filename), near[-1].lineno
    message = "{}: {}".format(type(err).__name__, err) if str(err) else type(err).__name__
    return {
        "message": message,
        "file": file,
        "line": line,
        "traceback": "".join(traceback.format_exception(type(err), err, err.__traceback__)),
    }


def _find_template(task: Task) -> Optional[Template]:
    for env in all_environments():
        if env.name == task.env and task.id in env.templates:
            return env.templates[task.id]
    return None


def _source(fn: Any) -> str:
    if fn is None:
        return ""
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""


def _source_file(fn: Any) -> Optional[str]:
    try:
        found = inspect.getsourcefile(fn) if fn is not None else None
    except TypeError:
        return None
    return os.path.abspath(found) if found else None


def _def_line(fn: Any) -> Optional[int]:
    if fn is None:
        return None
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        code = getattr(fn, "__code__", None)
        return code.co_firstlineno if code is not None else None
    for offset, text in enumerate(lines):
        if _DEF.match(text):
            return start + offset
    return start


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m hud_studio.discover", description="List the tasks of an env.py or task file.")
    parser.add_argument("path", help="env.py, or a .json/.jsonl task file")
    parser.add_argument("--module", help="env.py whose templates a task file's rows use (default: env.py beside it)")
    parser.add_argument("--json", action="store_true", help="print the JSON report (the engine's format)")
    options = parser.parse_args(argv)
    # User code that writes to file descriptor 1 itself (not through print)
    # must not corrupt the report either: the report keeps the real stdout,
    # and descriptor 1 points at stderr while user code runs.
    sys.stdout.flush()
    report_fd = os.dup(1)
    os.dup2(2, 1)
    report = discover(options.path, options.module)
    if options.json:
        text = json.dumps(report, ensure_ascii=False, default=str) + "\n"
    elif report["error"] is not None:
        e = report["error"]
        text = "{}:{}: {}\n".format(e["file"], e["line"] or "?", e["message"])
    else:
        text = "".join("{}::{}  {}:{}  {}\n".format(options.path, t["ref"], t["env"], t["id"], t["slug"])
                       for t in report["tasks"])
    sys.stdout.flush()
    data = text.encode("utf-8")
    while data:
        data = data[os.write(report_fd, data):]
    os.close(report_fd)
    return 1 if report["error"] is not None else 0


if __name__ == "__main__":
    sys.exit(main())
