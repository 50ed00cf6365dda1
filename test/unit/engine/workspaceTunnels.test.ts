/**
 * The llm agent's way to the environment's workspace (docs/models.md):
 * `tunnel.open` on a real TCP connection, and the ssh/2 shell against a real
 * SSH server (ssh2's, in process) reached through such a tunnel: the host
 * key is checked, the client key is the binding's, commands start in the
 * binding's cwd, and the preference order is ssh/2, the bundled shell, exec.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Server as SshServer, utils, type Connection } from 'ssh2';
import { openTunnel } from '../../../client/src/engine/channel/tunnel';
import { CancelledError, ProtocolError } from '../../../client/src/engine/errors';
import type { AgentWorkspace } from '../../../client/src/engine/agents/agent';
import { AgentError } from '../../../client/src/engine/agents/command';
import { sshKeyPair } from '../../support/sshKeys';
import { chooseShell, type ShellRequest } from '../../../client/src/engine/agents/llm/workspaceShell';

/** A control port stand-in: answers the first line with `reply`, then hands the socket to `then`. */
async function controlPort(reply: (frame: Record<string, unknown>) => string | null, then?: (s: Socket) => void) {
  const frames: Record<string, unknown>[] = [];
  const server = createServer((sock) => {
    let buf = '';
    const onData = (c: Buffer): void => {
      buf += c.toString('latin1');
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      sock.off('data', onData);
      const frame = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      frames.push(frame);
      const r = reply(frame);
      if (r === null) return void sock.end();
      sock.write(r);
      then?.(sock);
    };
    sock.on('data', onData);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const dial = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(s));
      s.once('error', reject);
    });
  return { server, frames, dial };
}

describe('tunnel.open', () => {
  test('sends the frame, and bytes that follow the reply in the same packet reach the new reader', async () => {
    const cp = await controlPort(() => `{"jsonrpc":"2.0","id":1,"result":{"capability":"shell"}}\nSSH-2.0-banner\r\n`);
    try {
      const s = await openTunnel(await cp.dial(), 'shell');
      const first = await new Promise<string>((r) => {
        s.once('data', (c: Buffer) => r(c.toString()));
        s.resume();
      });
      assert.equal(first, 'SSH-2.0-banner\r\n');
      assert.deepEqual(cp.frames[0], { jsonrpc: '2.0', id: 1, method: 'tunnel.open', params: { capability: 'shell' } });
      s.destroy();
    } finally {
      cp.server.close();
    }
  });

  test('a refusal is a ProtocolError with the server’s code and message; a hang-up and a cancel say so', async () => {
    const refused = await controlPort(
      () => '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown capability \'nope\'"}}\n',
    );
    const silent = await controlPort(() => null);
    const mute = await controlPort(() => '');
    try {
      await assert.rejects(
        openTunnel(await refused.dial(), 'nope'),
        (e: unknown) =>
          e instanceof ProtocolError && e.rpcCode === -32602 && /refused: unknown capability/.test(e.message),
      );
      await assert.rejects(openTunnel(await silent.dial(), 'shell'), /closed the connection before answering/);
      const ac = new AbortController();
      const pending = openTunnel(await mute.dial(), 'shell', ac.signal);
      ac.abort();
      await assert.rejects(pending, (e: unknown) => e instanceof CancelledError);
    } finally {
      for (const cp of [refused, silent, mute]) cp.server.close();
    }
  });
});

interface SshFixture {
  hostPub: string;
  clientKey: string;
  openTunnel: () => Promise<Duplex>;
  authenticated: number;
  commands: string[];
  close(): void;
}

/** An SSH server behind a fake control port: `exec` echoes the command line on stdout and stdin on stderr. */
async function sshFixture(opts: { hang?: boolean } = {}): Promise<SshFixture> {
  const host = sshKeyPair();
  const client = sshKeyPair();
  const allowed = utils.parseKey(client.public);
  if (allowed instanceof Error) throw allowed;
  const fx = { authenticated: 0, commands: [] as string[] };
  const ssh = new SshServer({ hostKeys: [host.private] }, (conn: Connection) => {
    conn.on('authentication', (ctx) => {
      if (ctx.method === 'publickey' && ctx.key.data.equals(allowed.getPublicSSH())) {
        fx.authenticated++;
        ctx.accept();
      } else ctx.reject(['publickey']);
    });
    conn.on('session', (accept) => {
      accept().on('exec', (acceptExec, _reject, info) => {
        const stream = acceptExec();
        fx.commands.push(info.command);
        if (opts.hang) return;
        let stdin = '';
        stream.on('data', (c: Buffer) => (stdin += c.toString()));
        stream.on('end', () => {
          stream.write(info.command);
          stream.stderr.write(stdin);
          stream.exit(3);
          stream.end();
        });
      });
    });
    conn.on('error', () => undefined);
  });
  const cp = await controlPort(
    () => '{"jsonrpc":"2.0","id":1,"result":{"capability":"shell"}}\n',
    (sock) => ssh.injectSocket(sock),
  );
  return {
    ...fx,
    get authenticated() {
      return fx.authenticated;
    },
    hostPub: host.public,
    clientKey: client.private,
    openTunnel: async () => openTunnel(await cp.dial(), 'shell'),
    close: () => {
      cp.server.close();
      ssh.close();
    },
  };
}

function workspace(bindings: AgentWorkspace['bindings'], open?: () => Promise<Duplex>): AgentWorkspace {
  return {
    bindings,
    workdir: '/seat',
    exec: () => Promise.reject(new Error('the provider exec must not run')),
    copyIn: () => Promise.reject(new Error('unused')),
    ...(open ? { openTunnel: open } : {}),
  };
}

const sshBinding = (params: Record<string, unknown>) => ({
  name: 'shell',
  protocol: 'ssh/2',
  url: 'ssh://127.0.0.1:2222',
  params,
});

const request = (over: Partial<ShellRequest> = {}): ShellRequest => ({
  script: 'cat -- "$1"',
  args: ["it's.txt"],
  stdin: 'some input',
  timeoutMs: 10_000,
  signal: new AbortController().signal,
  ...over,
});

describe('the ssh/2 shell over a tunnel', () => {
  let fx: SshFixture;
  before(async () => (fx = await sshFixture()));
  after(() => fx.close());

  test('checks the host key, logs in with the binding’s key, runs in its cwd with the arguments quoted', async () => {
    const ws = workspace(
      [sshBinding({ user: 'agent', host_pubkey: fx.hostPub, client_key: fx.clientKey, cwd: '/home/agent/work' })],
      fx.openTunnel,
    );
    const shell = await chooseShell(ws, new AbortController().signal);
    try {
      assert.equal(shell.via, 'ssh/2 capability "shell" (user agent)');
      const res = await shell.run(request());
      assert.equal(
        res.stdout,
        `cd '/home/agent/work' && exec '/bin/sh' '-c' 'cat -- "$1"' 'sh' 'it'\\''s.txt'`,
        'one command line: the cwd, then the script and its arguments, each quoted',
      );
      assert.deepEqual([res.stderr, res.exitCode, res.timedOut], ['some input', 3, false]);
    } finally {
      await shell.close();
    }
  });

  test('a daemon that does not hold the published host key is refused before any login', async () => {
    const other = sshKeyPair().public;
    const before = fx.authenticated;
    const ws = workspace([sshBinding({ user: 'agent', host_pubkey: other, client_key: fx.clientKey })], fx.openTunnel);
    await assert.rejects(
      chooseShell(ws, new AbortController().signal),
      (e: unknown) => e instanceof AgentError && /cannot use capability "shell" \(ssh\/2\)/.test(e.message),
    );
    assert.equal(fx.authenticated, before, 'no credentials went to the impostor');
  });

  test('a binding without client_key (or with only a path) is an agent error that says what to publish', async () => {
    for (const params of [{ host_pubkey: fx.hostPub }, { host_pubkey: fx.hostPub, client_key_path: '/k' }]) {
      await assert.rejects(
        chooseShell(workspace([sshBinding(params)], fx.openTunnel), new AbortController().signal),
        (e: unknown) => e instanceof AgentError && /publish the private key text as client_key/.test(e.hint ?? ''),
      );
    }
  });

  test('ssh/2 is preferred to the bundled shell; without capabilities or tunnels the provider exec runs', async () => {
    const studio = { name: 'ws', protocol: 'hud-studio-shell/1', url: 'tcp://127.0.0.1:1', params: {} };
    const both = workspace([studio, sshBinding({ host_pubkey: fx.hostPub, client_key: fx.clientKey })], fx.openTunnel);
    const shell = await chooseShell(both, new AbortController().signal);
    assert.match(shell.via, /^ssh\/2/);
    await shell.close();
    for (const ws of [workspace([]), workspace([studio])]) {
      assert.equal((await chooseShell(ws, new AbortController().signal)).via, 'provider exec');
    }
  });
});

test('a command that outlives its timeout is stopped and reported as timed out', async () => {
  const fx = await sshFixture({ hang: true });
  try {
    const ws = workspace([sshBinding({ host_pubkey: fx.hostPub, client_key: fx.clientKey })], fx.openTunnel);
    const shell = await chooseShell(ws, new AbortController().signal);
    const res = await shell.run(request({ timeoutMs: 200 }));
    assert.deepEqual([res.timedOut, res.exitCode], [true, null]);
    await shell.close();
  } finally {
    fx.close();
  }
});
