/**
 * Harbor's own example tasks (the peer checkout, v0.13.2), run here as Harbor
 * runs them: the oracle scores 1 and the nop agent 0, as each task defines.
 * No public registry is reachable on this machine, so every public base image
 * (ubuntu, debian, python) is replaced by the local Debian base image in a
 * private copy of the task, and where a python image was named, a `python`
 * command is added as the official images have one; nothing else is changed. Examples that cannot
 * run here are listed with the reason, and the list is checked to be exact.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { dockerReady } from '../docker/support';
import { runTrial } from './support';
import { HARBOR_PEER_EXAMPLES } from '../../harborPeer';

const PEER_EXAMPLES = HARBOR_PEER_EXAMPLES;
const LOCAL_BASE = 'hud-studio/base:bookworm';
const PUBLIC_BASES = /\b(ubuntu:24\.04|debian:bookworm-slim|python:3\.1[23]-slim)\b/g;

/** Every example this machine cannot run, and why (checked against the examples present). */
export const NOT_RUNNABLE: Record<string, string> = {
  'computer-1-click-calibration': 'needs a computer-use agent and a desktop; it has no oracle solution',
  'hello-computer-use':
    'its environment is a remote desktop provider (use.computer); there is nothing for Docker to build',
  'hello-cuda': 'needs an NVIDIA GPU',
  'describe-image': 'its Dockerfile copies uv from ghcr.io (no registry reachable here)',
  'hello-multi-step-bat': 'Windows containers (os = "windows")',
  'hello-world-bat': 'Windows containers (os = "windows")',
  'hello-alpine': 'its tests download uv from astral.sh (no internet here) and need an Alpine base image',
  'hello-world': 'its tests download uv from astral.sh (no internet here)',
  'hello-skills': 'its tests download uv from astral.sh (no internet here)',
  'hello-mcp': 'its MCP server installs Python packages from PyPI (no internet here)',
  'reward-kit-example': 'its tests run harbor-rewardkit through uvx from PyPI (no internet here)',
  'llm-judge-example': 'its verifier calls a hosted LLM API',
  'islo-network-policy-demo': 'its agent phase needs api.anthropic.com and GitHub (no internet here)',
  'network-policy-matrix/static/e-default': 'checks that the public internet is reachable (none here)',
  'network-policy-matrix/static/e-allowlist':
    'checks that example.com, its allowlisted host, is reachable (no internet here)',
  'network-policy-matrix/static/e-ve': 'its separate verifier checks that the public internet is reachable (none here)',
  'network-policy-matrix/static/e-ve-no-network': 'its agent checks that the public internet is reachable (none here)',
  'network-policy-matrix/static/sv-sve-same':
    'its step verifier checks that the public internet is reachable (none here)',
  'network-policy-matrix/dynamic/e-a-diff': 'a phase of it must reach example.com or www.iana.org (no internet here)',
  'network-policy-matrix/dynamic/e-a-diff-v-match':
    'a phase of it must reach example.com or www.iana.org (no internet here)',
  'network-policy-matrix/dynamic/e-v-diff': 'a phase of it must reach example.com or www.iana.org (no internet here)',
  'network-policy-matrix/dynamic/e-ve-sa-sv-diff':
    'a phase of it must reach example.com or www.iana.org (no internet here)',
  'network-policy-matrix/dynamic/e-ve-sve-diff':
    'a phase of it must reach example.com or www.iana.org (no internet here)',
  'network-policy-matrix/dynamic/sa-sv-diff': 'a phase of it must reach example.com or www.iana.org (no internet here)',
  'network-policy-matrix/dynamic/shared-allowlist':
    'a phase of it must reach example.com or www.iana.org (no internet here)',
  'network-policy-matrix/dynamic/sv-sve-diff':
    'a phase of it must reach example.com or www.iana.org (no internet here)',
  'network-policy-matrix/dynamic/v-ve-diff': 'a phase of it must reach example.com or www.iana.org (no internet here)',
};

/** What the nop agent scores where it is not 0. */
const NOP_REWARD: Record<string, number> = {};

function exampleTasks(): string[] {
  const out: string[] = [];
  const visit = (dir: string): void => {
    if (existsSync(join(dir, 'task.toml'))) out.push(relative(PEER_EXAMPLES, dir));
    else for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) visit(join(dir, e.name));
  };
  visit(PEER_EXAMPLES);
  return out.sort();
}

/** A private copy with public base images swapped for the local one (Dockerfiles and docker_image only). */
function localCopy(name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'hs-peer-')), name.replace(/\//g, '_'));
  cpSync(join(PEER_EXAMPLES, name), dir, { recursive: true });
  const visit = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.name === 'Dockerfile' || e.name === 'task.toml') {
        const text = readFileSync(p, 'utf8');
        let swapped = text.replace(PUBLIC_BASES, LOCAL_BASE);
        if (e.name === 'Dockerfile' && /^FROM\s+python:/m.test(text)) {
          swapped = swapped.replace(/^(FROM\s+\S+.*)$/m, '$1\nRUN ln -sf /usr/bin/python3 /usr/local/bin/python');
        }
        if (swapped !== text) writeFileSync(p, swapped, { mode: statSync(p).mode | 0o200 });
      }
    }
  };
  chmodWritable(dir);
  visit(dir);
  return dir;
}

/** The peer checkout is read-only; its copy must be writable to be edited and removed. */
function chmodWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chmodWritable(p);
    else if (e.isFile()) chmodSync(p, statSync(p).mode | 0o600);
  }
}

before(dockerReady);

describe("Harbor's example tasks", () => {
  const all = existsSync(PEER_EXAMPLES) ? exampleTasks() : [];
  test('the peer examples are present and every one not run here is listed with a reason', () => {
    assert.ok(all.length > 20, `${PEER_EXAMPLES} is missing or incomplete`);
    for (const name of Object.keys(NOT_RUNNABLE)) assert.ok(all.includes(name), `${name} is listed but not an example`);
    const lines = all.filter((n) => NOT_RUNNABLE[n]).map((n) => `  ${n}: ${NOT_RUNNABLE[n]}`);
    process.stdout.write(
      `# Harbor examples not run here (${lines.length} of ${all.length}):\n${lines.map((l) => `# ${l}`).join('\n')}\n`,
    );
  });
  for (const name of all.filter((n) => !NOT_RUNNABLE[n])) {
    test(`${name}: oracle 1, nop ${NOP_REWARD[name] ?? 0}`, async () => {
      const dir = localCopy(name);
      const oracle = await runTrial(dir, { agent: 'oracle' });
      assert.equal(oracle.outcome.status, 'completed', JSON.stringify(oracle.outcome.error));
      assert.equal(oracle.outcome.reward, 1, readFileSync(join(oracle.outcome.trialDir, 'result.json'), 'utf8'));
      const nop = await runTrial(dir, { agent: 'nop' });
      assert.equal(nop.outcome.reward ?? 0, NOP_REWARD[name] ?? 0, JSON.stringify(nop.outcome.error));
    });
  }
});
