/**
 * A Docker image that really contains the peer HUD SDK, built from files the
 * host has (no network): the peer's `hud` package, the Debian packages its
 * setup.sh unpacked ($HUD_SDK_PEER_CACHE), the host python's pydantic 2 and
 * the other pure-Python packages the SDK imports, and the peer shim's stand-ins
 * for what cannot be installed here. Everything goes into the image's
 * site-packages, so `python3 -m hud.environment.server` needs no PYTHONPATH.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { peerPythonPath, peerRoot } from './peer';

const BASE_IMAGE = 'hud-studio/base:bookworm';
/** Host packages the SDK imports besides the Debian ones (found by importing it through the shim). */
const HOST_PACKAGES = [
  'pydantic',
  'pydantic_core',
  'pydantic_settings',
  'annotated_types',
  'typing_inspection',
  'typing_extensions',
  'attr',
  'attrs',
  'certifi',
  'click',
  'dotenv',
  'idna',
  'pygments',
  'sniffio',
  'yaml',
  '_yaml',
];

function hostSitePackages(): string {
  return execFileSync(
    'python3',
    ['-c', 'import os, pydantic; print(os.path.dirname(os.path.dirname(pydantic.__file__)))'],
    {
      encoding: 'utf8',
    },
  ).trim();
}

function debRoot(): string {
  peerPythonPath(); // runs setup.sh, which unpacks the Debian packages
  const cache = process.env['HUD_SDK_PEER_CACHE'] ?? join(homedir(), '.cache', 'hud-sdk-peer');
  return join(cache, 'root', 'usr', 'lib', 'python3', 'dist-packages');
}

/** The image's tag; built once (cached by the peer's version file). */
export function peerSdkImage(): string {
  const version = execFileSync('cat', [join(peerRoot(), 'src', 'hud', 'version.py')], { encoding: 'utf8' });
  const tag = `hud-studio-test/peer-sdk:${createHash('sha256')
    .update(version + HOST_PACKAGES.join(',') + 'pth')
    .digest('hex')
    .slice(0, 12)}`;
  try {
    execFileSync('docker', ['image', 'inspect', tag], { stdio: 'ignore' });
    return tag;
  } catch {
    // not built yet
  }
  const ctx = mkdtempSync(join(tmpdir(), 'hs-peer-image-'));
  try {
    const site = join(ctx, 'site');
    cpSync(join(peerRoot(), 'src', 'hud'), join(site, 'hud'), {
      recursive: true,
      filter: (p) => !p.includes('__pycache__') && !/\/tests(\/|$)/.test(p),
    });
    cpSync(debRoot(), site, { recursive: true });
    const host = hostSitePackages();
    for (const name of HOST_PACKAGES) {
      for (const entry of readdirSync(host).filter(
        (e) => e === name || e === `${name}.py` || (e.startsWith(`${name}.`) && e.endsWith('.so')),
      )) {
        cpSync(join(host, entry), join(site, entry), { recursive: true, filter: (p) => !p.includes('__pycache__') });
      }
    }
    const shim = join(peerRoot(), 'shim');
    cpSync(join(shim, 'stubs', 'mcp'), join(site, 'mcp'), { recursive: true });
    // Debian's own sitecustomize shadows one in site-packages; a .pth line runs the shim at start-up instead.
    cpSync(join(shim, 'sitecustomize.py'), join(site, 'hud_peer_shim.py'));
    writeFileSync(join(site, 'hud_peer_shim.pth'), 'import hud_peer_shim\n');
    if (!existsSync(join(site, 'pydantic'))) throw new Error(`no pydantic 2 in ${host}`);
    writeFileSync(join(ctx, 'Dockerfile'), `FROM ${BASE_IMAGE}\nCOPY site/ /usr/local/lib/python3.11/dist-packages/\n`);
    execFileSync('docker', ['build', '-q', '-t', tag, ctx], { stdio: ['ignore', 'ignore', 'inherit'] });
    return tag;
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}
