/**
 * The fast paths of a cold index give the same answers as the general ones:
 * files parsed a batch at a time (setFiles) versus one at a time (setFile),
 * string literals copied a run at a time, plain paths turned into URIs
 * without resolving and encoding, argument checks without a signature.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Analyzer, type FileContent, type PhaseTimes } from '../../../server/src/analysis/analyzer';
import { checkArgs } from '../../../server/src/analysis/argsCheck';
import { pathToUri } from '../../../server/src/analysis/paths';
import { literalString } from '../../../server/src/analysis/syntax';
import { ENV_HEADER, py, ROOT } from './helpers';

function envModule(i: number): string {
  return `${ENV_HEADER}${py`
    from judge import verify


    @env.template(id="t${i}", description="Template number ${i} with a long description")
    async def t${i}(level: int, *, mode: str = "fast"):
        answer = yield "Solve puzzle ${i}, then write the answer to out.txt"
        yield {"score": 1.0, "answer": answer}


    task = t${i}(level=${i})
    task.verifier = verify(expected="x")
    bad = t${i}(levels=1)
  `}`;
}

const JUDGE = `${ENV_HEADER}${py`
  @env.template(id="verify")
  async def verify(expected: str):
      result = yield ""
      yield 1.0 if result["answer"] == expected else 0.0
`}`;

/** 150 files (more than two parse batches) with a broken, an oversized, a non-UTF-8 and a JSON file among them. */
function files(): [string, FileContent][] {
  const out: [string, FileContent][] = [[join(ROOT, 'judge.py'), JUDGE]];
  for (let i = 0; i < 150; i++) {
    const path = join(ROOT, `env_${i}.py`);
    if (i === 63) out.push([path, `${envModule(i)}\ndef broken(:\n    pass\n`]);
    else if (i === 64) out.push([path, { oversizedBytes: 3 * 1024 * 1024 }]);
    else if (i === 65) out.push([path, new Uint8Array([...new TextEncoder().encode(envModule(i)), 0xff, 0xfe, 0x0a])]);
    else out.push([path, envModule(i)]);
    if (i === 100)
      out.push([join(ROOT, 'tasks.json'), JSON.stringify([{ env: 'workspace', id: 't1', args: { level: 1 } }])]);
  }
  return out;
}

async function indexed(batched: boolean, phases?: PhaseTimes) {
  const a = await Analyzer.create({ roots: [ROOT], host: { exists: () => false }, ...(phases ? { phases } : {}) });
  const entries = files();
  const affected = batched ? a.setFiles(entries) : entries.flatMap(([p, c]) => [...a.setFile(p, c)]);
  const perFile = [...a.workspace.paths()]
    .sort()
    .map((p) => ({ path: p, facts: a.workspace.facts(p), problems: a.workspace.problems(p) }));
  const index = a.workspace.index();
  a.dispose();
  return { affected: new Set(affected), perFile, index: { ...index, version: 0 } };
}

describe('cold index fast paths', () => {
  test('files parsed in batches give the same facts, problems and index as files set one by one', async () => {
    const batched = await indexed(true);
    const single = await indexed(false);
    assert.equal(batched.perFile.length, 152);
    assert.deepEqual(batched.perFile, single.perFile);
    assert.deepEqual(batched.index, single.index);
    assert.deepEqual(batched.affected, single.affected);
    // the batch really read the files around the broken, oversized and non-UTF-8 ones
    const byName = (n: string) => batched.perFile.find((f) => f.path === join(ROOT, n))!;
    const broken = byName('env_63.py').facts;
    assert.equal(broken?.kind === 'python' && broken.hasSyntaxErrors, true);
    assert.deepEqual(
      byName('env_64.py').problems.map((p) => p.code),
      ['file-too-large'],
    );
    for (const n of ['env_62.py', 'env_65.py', 'env_66.py', 'env_149.py']) {
      // `t(levels=1)`: an unknown keyword, and `level` missing
      assert.deepEqual(
        byName(n).problems.map((p) => p.code),
        ['task-bad-args', 'task-bad-args'],
        n,
      );
    }
    assert.equal(batched.index.tasks.filter((t) => t.verifier?.templateId === 'verify').length, 149);
  });

  test('timing the phases of a cold index sums CPU time into each phase and changes no result', async () => {
    const phases: PhaseTimes = { parse: 0, extract: 0, link: 0 };
    const c0 = process.cpuUsage();
    const timed = await indexed(true, phases);
    const c = process.cpuUsage(c0);
    assert.deepEqual(timed, await indexed(true));
    // 150 files: each phase takes measurable CPU, and together no more than the whole.
    assert.ok(phases.parse > 0 && phases.extract > 0 && phases.link > 0, JSON.stringify(phases));
    assert.ok(phases.parse + phases.extract + phases.link <= (c.user + c.system) / 1000, JSON.stringify(phases));
  });

  test('string literals: escapes, raw strings, f-strings and early ends', () => {
    assert.equal(literalString('"plain text that is longer than thirteen"'), 'plain text that is longer than thirteen');
    assert.equal(literalString(String.raw`"a\nb\tc \"q\" \\ end"`), 'a\nb\tc "q" \\ end');
    assert.equal(literalString(String.raw`r"a\nb"`), String.raw`a\nb`);
    assert.equal(literalString(String.raw`"unknown \d escape"`), String.raw`unknown \d escape`);
    assert.equal(literalString('"""say "hi" twice"""'), 'say "hi" twice');
    assert.equal(literalString('f"no fields"'), 'no fields');
    assert.equal(literalString('f"{x}"'), undefined);
    assert.equal(literalString('"a" "b"'), undefined);
    assert.equal(literalString('"a" + x'), undefined);
    assert.equal(literalString('""'), '');
    assert.equal(literalString(String.raw`"ends in \\"`), 'ends in \\');
  });

  test('URIs of plain paths and of paths that need resolving or encoding', () => {
    assert.equal(pathToUri('/ws/envs/g0/env_1.py'), 'file:///ws/envs/g0/env_1.py');
    assert.equal(pathToUri('/ws/envs/../judge.py'), 'file:///ws/judge.py');
    assert.equal(pathToUri('/ws/./a.py'), 'file:///ws/a.py');
    assert.equal(pathToUri('/ws/my env/(x).py'), 'file:///ws/my%20env/%28x%29.py');
    assert.equal(pathToUri('/ws/caf\u00e9.py'), 'file:///ws/caf%C3%A9.py');
    assert.equal(pathToUri('/ws/dir/'), 'file:///ws/dir');
  });

  test('argument checks name the signature only in their messages', () => {
    const params = [
      { name: 'level', kind: 'positional' as const, annotation: 'int' },
      { name: 'mode', kind: 'keyword' as const, default: '"fast"' },
    ];
    assert.deepEqual(
      checkArgs({ functionName: 't', params }, { positional: 1, keywords: ['mode'], hasSplat: false }),
      [],
    );
    const problems = checkArgs(
      { functionName: 't', params },
      { positional: 2, keywords: ['level', 'modes'], hasSplat: false },
    );
    assert.deepEqual(
      problems.map((p) => p.keyword),
      [undefined, 'level', 'modes'],
    );
    assert.match(
      problems[0]!.message,
      /takes 1 positional argument but 2 were given; its signature is t\(level: int, \*, mode = "fast"\)/,
    );
    assert.match(problems[1]!.message, /multiple values for argument "level"/);
    assert.match(
      problems[2]!.message,
      /unexpected keyword argument "modes"; its signature is t\(level: int, \*, mode = "fast"\) \(fix: use one of level, mode\)/,
    );
  });
});
