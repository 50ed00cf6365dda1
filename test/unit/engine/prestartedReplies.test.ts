import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { packCopy } from '../../../client/src/engine/docker/container';
import type { InteractiveExec } from '../../../client/src/engine/docker/exec';
import { PrestartedReplies } from '../../../client/src/engine/providers/prestartedReplies';
import { runtimePythonDir } from '../../../client/src/engine/runtimePaths';

const UNPACK = readFileSync(join(runtimePythonDir(), 'hud_studio', 'unpack.py'), 'utf8');
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hs-replies-'));
  dirs.push(d);
  return d;
}

/** The real unpack.py in a local python3, driven the way the Docker provider drives it in a container. */
function interpreter(
  runtimeDir: string,
  cwd: string,
): { exec: InteractiveExec; replies: PrestartedReplies; exit: Promise<number | null>; other: string[] } {
  const proc = spawn('python3', ['-c', UNPACK], {
    cwd,
    env: { ...process.env, PYTHONPATH: runtimeDir, PYTHONDONTWRITEBYTECODE: '1' },
  });
  const other: string[] = [];
  const replies = new PrestartedReplies((text) => other.push(text));
  proc.stdout.on('data', (chunk: Buffer) => replies.push(chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => other.push(chunk.toString()));
  const exit = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  void exit.then(() => replies.close());
  const exec: InteractiveExec = {
    stdin: proc.stdin,
    done: exit.then((exitCode) => ({ exitCode, stdout: '', stderr: '', timedOut: false })),
    kill: async () => void proc.kill('SIGKILL'),
    divertStdout: () => undefined,
  };
  return { exec, replies, exit, other };
}

describe('copy-in through the pre-started interpreter (the engine side of unpack.py)', () => {
  test('a folder arrives whole, and discovery then runs from the runtime it brought', async () => {
    const root = tempDir();
    const env = join(root, 'env');
    mkdirSync(join(env, 'deep', 'er'), { recursive: true });
    writeFileSync(join(env, 'env.py'), 'from hud import Environment\nenv = Environment("copied")\n');
    writeFileSync(join(env, 'deep', 'er', 'blob.bin'), Buffer.alloc(300_000, 3));
    const target = join(root, 'target');
    mkdirSync(target);
    const runtimeDest = join(target, 'runtime');
    const envDest = join(target, 'env');
    const { exec, replies, exit } = interpreter(runtimeDest, target);
    const packed = await packCopy([
      { hostPath: runtimePythonDir(), dest: runtimeDest, skip: (rel, isDir) => isDir && rel.endsWith('__pycache__') },
      { hostPath: env, dest: envDest },
    ]);
    const outcome = await replies.copy(exec, packed.open(), AbortSignal.timeout(30_000));
    assert.deepEqual(outcome, { copied: true });
    assert.equal(readFileSync(join(envDest, 'deep', 'er', 'blob.bin')).length, 300_000);
    const found = await replies.request(exec, [join(envDest, 'env.py'), '--json'], { cwd: envDest }, () =>
      exec.kill('KILL'),
    );
    assert.equal(found?.exitCode, 0, found?.stderr);
    assert.equal((JSON.parse(found.stdout) as { environments: { name: string }[] }).environments[0]?.name, 'copied');
    exec.stdin.end();
    assert.equal(await exit, 0);
  });

  test('a host file that cannot be read: its own error is the outcome, and the interpreter exits', async () => {
    const root = tempDir();
    const { exec, replies, exit } = interpreter(join(root, 'runtime'), root);
    const broken = new Readable({
      read() {
        this.push(Buffer.alloc(1024, 1));
        this.destroy(new Error("EACCES: permission denied, open '/host/secret.bin'"));
      },
    });
    const outcome = await replies.copy(exec, broken, AbortSignal.timeout(30_000));
    assert.deepEqual(outcome, { error: "EACCES: permission denied, open '/host/secret.bin'" });
    assert.equal(await exit, 1);
  });

  test('an interpreter that is gone answers nothing: undefined, so the engine falls back', async () => {
    const root = tempDir();
    const { exec, replies, exit } = interpreter(join(root, 'runtime'), root);
    await exec.kill('KILL');
    await exit;
    const packed = await packCopy([{ hostPath: runtimePythonDir(), dest: join(root, 'runtime') }]);
    assert.equal(await replies.copy(exec, packed.open(), AbortSignal.timeout(30_000)), undefined);
  });

  test('a cancel ends the wait at once', async () => {
    const root = tempDir();
    const { exec, replies } = interpreter(join(root, 'runtime'), root);
    // An archive that never ends: the interpreter keeps waiting for chunks.
    const endless = new Readable({ read() {} });
    endless.push(Buffer.alloc(512, 0));
    const ac = new AbortController();
    const pending = replies.copy(exec, endless, ac.signal);
    setTimeout(() => ac.abort(), 100);
    assert.equal(await pending, undefined);
    await exec.kill('KILL');
  });
});
