"""Runs task rows through the real HUD SDK's rollout engine (the peer) and prints one JSON result per run.

    python3 peer_driver.py ENV_FILE ROWS_JSON ANSWERS_JSON TIMEOUT_JSON [ENV=tcp://HOST:PORT ...]

Without addresses the SDK serves ENV_FILE itself (LocalRuntime): path (a),
the peer end to end. With one address per environment name it attaches to
servers someone else runs (Runtime(url)): path (b), the peer's client
against HUD Studio's bundled server. A row with a "task" key names a Task
the env file makes itself (`name` or `name[i]`); the others are task-file
rows. TIMEOUT_JSON is the rollout's time
limit in seconds, or null. Run with the peer SDK on PYTHONPATH.
"""
import asyncio
import importlib.util
import json
import logging
import math
import sys
import warnings

from hud.eval import LocalRuntime, Runtime, Task
from hud.eval.run import rollout


def fixed(answer):
    async def agent(run):
        run.trace.content = answer
    return agent


def finite_or_name(x):
    """JSON has no NaN or infinities: those rewards travel as their names."""
    return x if math.isfinite(x) else repr(x)


def module_task(env_file, reference, loaded={}):
    """The Task at `reference` in the env file (imported once, as the SDK's users import it)."""
    if env_file not in loaded:
        spec = importlib.util.spec_from_file_location("conformance_env", env_file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        loaded[env_file] = module
    name, _, index = reference.partition("[")
    value = getattr(loaded[env_file], name)
    return list(value)[int(index.rstrip("]"))] if index else value


def placement(env_file, addresses):
    if not addresses:
        return LocalRuntime(env_file)
    return lambda task: Runtime(addresses[task.env])(task)


async def main():
    env_file, rows, answers = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
    timeout = json.loads(sys.argv[4])
    addresses = dict(a.split("=", 1) for a in sys.argv[5:])
    runtime = placement(env_file, addresses)
    out = []
    for index, row in enumerate(rows):
        for answer in answers:
            task = module_task(env_file, row["task"]) if "task" in row else Task.model_validate(row)
            run = await rollout(task, fixed(answer), runtime=runtime, rollout_timeout=timeout)
            # The subscores as the SDK's client read them into its model (numbers parsed), not the raw frame.
            subscores = (run.grade.evaluation if run.grade else {}).get("subscores") or []
            out.append({
                "row": index,
                "answer": answer,
                "status": run.trace.status,
                "reward": finite_or_name(run.grade.reward) if run.grade else None,
                "prompt": run.prompt,
                "subscores": [[s["name"], s["value"], s.get("weight", 1.0)] for s in subscores],
                "slug": run.slug,
            })
    print(json.dumps(out))


if __name__ == "__main__":
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    asyncio.run(main())
