/**
 * The files of a new environment, written the safe way: the actor's
 * environment only records the answer; a judge environment of its own grades
 * it on a fresh substrate from an answer key in `verifier-only/`, which only
 * verifier substrates receive, so nothing in the actor's seat can read or
 * change what it is graded against (docs/security.md). No vscode here: the command that writes these
 * files is client/src/ui/newEnvironment.ts.
 */

export type ScaffoldPart = 'hud' | 'taskFile' | 'harbor';

export interface ScaffoldFile {
  /** POSIX path relative to the folder the environment is created in. */
  path: string;
  content: string;
  executable?: boolean;
}

const NAME = /^[a-z][a-z0-9_-]{0,62}$/;

/** Undefined when `name` is usable as an environment and folder name; else why not. */
export function invalidName(name: string): string | undefined {
  if (NAME.test(name)) return undefined;
  return 'Use 1-63 lowercase letters, digits, "-" or "_", starting with a letter (it names the folder and the environment).';
}

/** Python module name for a folder name (`my-env` -> `my_env`). */
function moduleName(name: string): string {
  return name.replace(/-/g, '_');
}

export function scaffoldFiles(name: string, parts: readonly ScaffoldPart[]): ScaffoldFile[] {
  const why = invalidName(name);
  if (why) throw new Error(`"${name}": ${why}`);
  const out: ScaffoldFile[] = [];
  if (parts.includes('hud')) out.push(...hudFiles(name));
  if (parts.includes('taskFile')) out.push(taskFile(name));
  if (parts.includes('harbor')) out.push(...harborFiles(name));
  return out;
}

function hudFiles(name: string): ScaffoldFile[] {
  const judge = `${moduleName(name)}_judge`;
  return [
    {
      path: `${name}/env.py`,
      content: `"""The ${name} environment: the actor's side.

The actor environment asks the question and records the answer; it does not
grade. The judge environment (judge/env.py) grades the answer on a substrate
of its own, against an answer key only the judge's substrate receives.

    hud-studio run ${name}/env.py::task --answer YOUR-ANSWER
"""
from hud import Environment

from judge.env import verify

actor = Environment("${name}")


@actor.template(id="ask", description="Ask a question and record the answer.")
async def ask(question: str):
    answer = yield f"{question} Answer with one word."
    # Provisional: the verifier's grade replaces it. The question travels with
    # the answer, so the judge can look up what it expects.
    yield {"score": 0.0, "answer": answer, "question": question}


task = ask(question="What is the capital of France?")
task.verifier = verify()
`,
    },
    { path: `${name}/judge/__init__.py`, content: '' },
    {
      path: `${name}/judge/env.py`,
      content: `"""The ${name} judge: grades the actor's answer against its own answer key.

It runs in an environment of its own, on a fresh substrate, so nothing the
actor leaves behind reaches the grade. The answer key sits in
verifier-only/, which HUD Studio copies into verifier substrates only: the
actor's substrate never holds it.
"""
import json
from pathlib import Path

from hud import Environment
from hud.graders import SubScore, combine, contains, exact_match

judge = Environment("${judge}")

ANSWERS = Path(__file__).parent.parent / "verifier-only" / "answers.json"


@judge.template(id="verify", description="Grade the actor's answer against the answer key.")
async def verify():
    actor_result = yield ""  # agent-less: a verifier only grades
    expected = json.loads(ANSWERS.read_text())[actor_result.get("question", "")]
    answer = str(actor_result.get("answer", ""))
    yield await combine(
        SubScore(name="exact", value=exact_match(answer, expected), weight=0.8),
        SubScore(name="mentions", value=contains(answer, expected), weight=0.2),
    )
`,
    },
    {
      path: `${name}/verifier-only/answers.json`,
      content: `${JSON.stringify({ 'What is the capital of France?': 'Paris', 'What is the capital of Italy?': 'Rome' }, null, 2)}\n`,
    },
  ];
}

function taskFile(name: string): ScaffoldFile {
  const rows = [
    {
      env: name,
      id: 'ask',
      args: { question: 'What is the capital of Italy?' },
      verifier: { env: `${moduleName(name)}_judge`, id: 'verify', args: {} },
    },
  ];
  return { path: `${name}/tasks.jsonl`, content: rows.map((r) => JSON.stringify(r)).join('\n') + '\n' };
}

function harborFiles(name: string): ScaffoldFile[] {
  const dir = `${name}/harbor/${name}`;
  return [
    {
      path: `${dir}/task.toml`,
      content: `version = "1.0"

[metadata]
difficulty = "easy"
category = "example"

[agent]
timeout_sec = 120.0

[verifier]
timeout_sec = 120.0

[environment]
build_timeout_sec = 300.0
`,
    },
    { path: `${dir}/instruction.md`, content: 'Write the word `hello` into `/app/answer.txt`.\n' },
    { path: `${dir}/environment/Dockerfile`, content: 'FROM python:3.11-slim\nWORKDIR /app\n' },
    {
      path: `${dir}/solution/solve.sh`,
      content: '#!/bin/bash\nset -euo pipefail\necho hello > /app/answer.txt\n',
      executable: true,
    },
    {
      path: `${dir}/tests/test.sh`,
      content: `#!/bin/bash
# Writes the reward where Harbor reads it: 1 when the answer is right, else 0.
mkdir -p /logs/verifier
if [ "$(cat /app/answer.txt 2>/dev/null)" = "hello" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
`,
      executable: true,
    },
  ];
}
