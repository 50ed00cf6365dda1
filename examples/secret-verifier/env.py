"""A task with a verifier in an environment of its own.

The actor environment only records the answer; the judge environment grades
it on a fresh substrate, so nothing the actor leaves behind can influence the
grade. The expected word is not in this file: it sits in `verifier-only/`,
which HUD Studio copies into verifier substrates only, so an agent reading
the actor's copy of this folder finds nothing to copy (docs/security.md).
Nor is the word in any prompt, description or other string here, so
`hud-studio sanity` finds no answer built from them that scores. Run it
with the word in `verifier-only/expected.txt` as the answer:

    hud-studio run examples/secret-verifier/env.py::task --answer WORD
"""
from pathlib import Path

from hud import Environment
from hud.graders import SubScore, combine, contains, exact_match

actor = Environment("workspace")
judge = Environment("judge")

EXPECTED_FILE = Path(__file__).parent / "verifier-only" / "expected.txt"


@actor.template(id="solve", description="Find the secret word and answer with it.")
async def solve():
    answer = yield "What is the secret word? Answer with the word only."
    # The actor's grade is provisional: the verifier below replaces it.
    yield {"score": 0.0, "answer": answer}


@judge.template(id="verify", description="Grade the actor's answer against the expected word.")
async def verify():
    actor_result = yield ""  # agent-less: the verifier only grades
    answer = str(actor_result.get("answer", ""))
    expected = EXPECTED_FILE.read_text(encoding="utf-8").strip()
    yield await combine(
        SubScore(name="exact", value=exact_match(answer, expected), weight=0.8),
        SubScore(name="mentions", value=contains(answer, expected), weight=0.2),
    )


task = solve()
task.verifier = verify()
