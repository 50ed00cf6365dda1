/**
 * Serves the trace explorer to headless Chromium for the browser tests and the
 * bench: builds the webview bundle (same esbuild options as the `web` entry of
 * scripts/build.mjs, into a temporary folder so a concurrent `npm run build`
 * cannot pull it away mid-test), serves it on 127.0.0.1 with the real page
 * from renderExplorerHtml (strict CSP), and the repository's files for the
 * development page media/dev/index.html.
 */
import { createServer, type Server } from 'node:http';
import { after, before } from 'node:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join, normalize, sep } from 'node:path';
import * as esbuild from 'esbuild';
// @ts-expect-error: a plain .mjs build helper, shared with scripts/build.mjs
import { inlineWorkerPlugin } from '../../scripts/esbuildInlineWorker.mjs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { makeNonce, renderExplorerHtml } from '../../client/src/explorer/html';
import type { HostToExplorerMessage } from '../../common/explorerMessages';

export const repoRoot = join(__dirname, '..', '..');
export const fixturesDir = join(repoRoot, 'test', 'fixtures', 'traces');
export const screenshotDir = join(repoRoot, 'test-results', 'explorer');

export function fixture(name: string): unknown {
  return JSON.parse(readFileSync(join(fixturesDir, name), 'utf8'));
}

export async function buildExplorerBundle(): Promise<{ file: string; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'hud-explorer-'));
  await esbuild.build({
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: false,
    logLevel: 'warning',
    entryPoints: { explorer: join(repoRoot, 'media/src/explorer/main.ts') },
    outdir: dir,
    loader: { '.css': 'text' },
    plugins: [inlineWorkerPlugin()],
  });
  return { file: join(dir, 'explorer.js'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.css': 'text/css',
};

export interface ExplorerServer {
  origin: string;
  /** The page exactly as the extension serves it (CSP, nonce). */
  explorerUrl: string;
  /** Adds an in-memory file (e.g. a generated big trace). */
  put(path: string, body: string): void;
  close(): Promise<void>;
}

export async function startExplorerServer(bundleFile: string): Promise<ExplorerServer> {
  const extra = new Map<string, string>();
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, type: string, body: string | Buffer): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (url.pathname === '/explorer.html') {
      // `?initial=NAME` embeds a fixture trace in the page, as the host may do for small traces.
      const initial = url.searchParams.get('initial');
      const html = renderExplorerHtml({
        cspSource: origin,
        scriptUri: `${origin}/dist/media/explorer.js`,
        nonce: makeNonce(),
        ...(initial ? { initialTrace: fixture(basename(initial)) } : {}),
      });
      return send(200, TYPES['.html'] as string, html);
    }
    if (url.pathname === '/favicon.ico') return send(204, 'image/x-icon', '');
    if (url.pathname === '/dist/media/explorer.js') return send(200, TYPES['.js'] as string, readFileSync(bundleFile));
    const mem = extra.get(url.pathname);
    if (mem !== undefined) return send(200, TYPES[extname(url.pathname)] ?? 'text/plain', mem);
    const file = normalize(join(repoRoot, decodeURIComponent(url.pathname)));
    if (!file.startsWith(repoRoot + sep) || file.includes(`${sep}node_modules${sep}`))
      return send(403, 'text/plain', 'forbidden');
    try {
      if (!statSync(file).isFile()) return send(404, 'text/plain', 'not found');
      return send(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file));
    } catch {
      return send(404, 'text/plain', 'not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('explorer test server has no TCP address');
  origin = `http://127.0.0.1:${addr.port}`;
  return {
    origin,
    explorerUrl: `${origin}/explorer.html`,
    put: (path, body) => void extra.set(path, body),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.HUD_STUDIO_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface PageProblems {
  errors: string[];
  cspViolations: string[];
}

/** Opens a page and records uncaught errors and CSP violations (a correct page has neither). */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; problems: PageProblems }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: PageProblems = { errors: [], cspViolations: [] };
  page.on('pageerror', (e) => problems.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.errors.push(m.text());
  });
  await page.exposeFunction('__reportCsp', (v: string) => problems.cspViolations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __reportCsp(v: string): void }).__reportCsp(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(url);
  await page.waitForSelector('body[data-state]');
  return { page, problems };
}

/** Posts a host message the way VS Code delivers it (a window message event) and waits for the render. */
export async function post(page: Page, message: HostToExplorerMessage): Promise<void> {
  await page.evaluate(
    (m) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the explorer did not render after a ${String(m.type)} message`)),
          10_000,
        );
        document.addEventListener('hud-explorer-rendered', () => (clearTimeout(timer), resolve()), { once: true });
        window.postMessage(m, '*');
      }),
    message as unknown as Record<string, unknown>,
  );
}

export interface ExplorerSession {
  readonly server: ExplorerServer;
  readonly browser: Browser;
}

/**
 * Registers before/after hooks in the calling describe(): one explorer
 * bundle, one static server and one Chromium shared by its tests, all
 * removed afterwards. `prepare` adds files to the server before any test.
 */
export function useExplorerSession(prepare?: (server: ExplorerServer) => void): ExplorerSession {
  let bundle: Awaited<ReturnType<typeof buildExplorerBundle>> | undefined;
  let server: ExplorerServer | undefined;
  let browser: Browser | undefined;
  before(async () => {
    mkdirSync(screenshotDir, { recursive: true });
    bundle = await buildExplorerBundle();
    server = await startExplorerServer(bundle.file);
    prepare?.(server);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    bundle?.cleanup();
  });
  return {
    get server() {
      return server!;
    },
    get browser() {
      return browser!;
    },
  };
}
