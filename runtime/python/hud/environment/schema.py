"""JSON Schema of a template's arguments, read from its Python signature."""
import inspect
import json
import re
import typing
from typing import Any, Callable, Dict, List

_SIMPLE = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    set: "array",
    dict: "object",
    type(None): "null",
}

_SIMPLE_NAMES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "List": "array",
    "tuple": "array",
    "Tuple": "array",
    "set": "array",
    "dict": "object",
    "Dict": "object",
    "None": "null",
}


def args_schema(fn: Callable[..., Any]) -> Dict[str, Any]:
    """`{"type": "object", "properties": ..., "required": [...]}` for fn's parameters."""
    signature = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn)
    except Exception:
        # Unresolvable string annotations: fall back to reading the raw text.
        hints = {}
    properties = {}  # type: Dict[str, Any]
    required = []  # type: List[str]
    open_ended = False
    for name, param in signature.parameters.items():
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            open_ended = True
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        annotation = hints.get(name, param.annotation)
        prop = annotation_schema(annotation)
        if param.default is inspect.Parameter.empty:
            required.append(name)
        elif _is_json(param.default):
            prop["default"] = param.default
        properties[name] = prop
    schema = {"type": "object", "properties": properties, "required": required}  # type: Dict[str, Any]
    if not open_ended:
        schema["additionalProperties"] = False
    return schema


def annotation_schema(annotation: Any) -> Dict[str, Any]:
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}
    if isinstance(annotation, str):
        return _string_annotation_schema(annotation)
    if annotation in _SIMPLE:
        return {"type": _SIMPLE[annotation]}
    origin = getattr(annotation, "__origin__", None)
    type_args = getattr(annotation, "__args__", None) or ()
    if origin is typing.Union or type(annotation).__name__ == "UnionType":
        members = [annotation_schema(a) for a in type_args]
        types = [m.get("type") for m in members]
        if all(isinstance(t, str) for t in types):
            unique = []  # type: List[str]
            for t in types:
                if t not in unique:
                    unique.append(t)
            return {"type": unique[0] if len(unique) == 1 else unique}
        return {"anyOf": members}
    if origin is typing.Literal:
        values = [v for v in type_args if _is_json(v)]
        return {"enum": values}
    if origin in (list, tuple, set, frozenset):
        schema = {"type": "array"}  # type: Dict[str, Any]
        if origin is list and type_args:
            schema["items"] = annotation_schema(type_args[0])
        return schema
    if origin is dict:
        return {"type": "object"}
    return {}


def _string_annotation_schema(text: str) -> Dict[str, Any]:
    text = text.strip()
    optional = re.match(r"^(?:typing\.)?Optional\[(.*)\]$", text)
    if optional:
        inner = _string_annotation_schema(optional.group(1)).get("type")
        return {"type": [inner, "null"]} if isinstance(inner, str) else {}
    if "|" in text:
        parts = [_string_annotation_schema(p).get("type") for p in text.split("|")]
        if all(isinstance(p, str) for p in parts):
            return {"type": parts if len(parts) > 1 else parts[0]}
        return {}
    base = re.sub(r"\[.*$", "", text).replace("typing.", "")
    if base in _SIMPLE_NAMES:
        return {"type": _SIMPLE_NAMES[base]}
    return {}


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
        return True
    except (TypeError, ValueError):
        return False


def describe_templates(env: Any) -> List[Dict[str, Any]]:
    """`tasks.list` rows: `[{id, description, args}]` for every template of env."""
    return [
        {"id": t.id, "description": t.description, "args": args_schema(t.fn)}
        for t in env.templates.values()
    ]

