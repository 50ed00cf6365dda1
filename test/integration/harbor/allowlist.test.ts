/**
 * Harbor's `network_mode = "allowlist"` on the real Docker engine (docs/harbor.md, "Allowlists"): the
 * allowed host answers through HUD Studio's proxy, nothing else does, and an agent that tries the ways
 * around it (other hosts, no proxy, the host's own services, allowlisting the host by address) gets
 * nowhere. Debian's mirror is the one outside host these machines reach, so it is the allowed one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { ROLLOUT_NETWORK } from '../../../client/src/engine/docker/rolloutNetwork';
import { dockerReady } from '../docker/support';
import { HARBOR_PEER_EXAMPLES } from '../../harborPeer';
import { HARBOR_FIXTURES, fixtureVariant, runTrial } from './support';

let hostService: Server;
let port = 0;
/** Every IPv4 address of this machine, and the rollout network's gateway: where the host's services answer. */
let hostAddresses: string[] = [];

before(async () => {
  await dockerReady();
  hostService = createServer((_req, res) => res.end('host-secret'));
  await new Promise<void>((resolve) => hostService.listen(0, '0.0.0.0', resolve));
  port = (hostService.address() as AddressInfo).port;
  const gateways = (await dockerClient().listNetworks()).flatMap((n) =>
    (n.IPAM?.Config ?? []).map((c) => c.Gateway).filter((g): g is string => !!g),
  );
  hostAddresses = [
    ...new Set([
      ...Object.values(networkInterfaces())
        .flatMap((l) => l ?? [])
        .filter((i) => i.family === 'IPv4')
        .map((i) => i.address),
      ...gateways.filter((g) => !g.includes(':')),
    ]),
  ];
  // The probe below must be able to fail: from the rollout network, the host's service answers.
  assert.ok(hostAddresses.includes('172.17.0.1') || hostAddresses.length > 1, hostAddresses.join(', '));
});

after(() => hostService.close());

/** The sidecar fixture (a Compose task) with these lines at the top of its [environment]. */
function composeTask(environmentLines: string, verifierLines = ''): string {
  const toml = readFileSync(join(HARBOR_FIXTURES, 'compose-sidecar', 'task.toml'), 'utf8');
  return fixtureVariant('compose-sidecar', {
    'task.toml': toml
      .replace('[environment]\n', `[environment]\n${environmentLines}\n`)
      .replace('[verifier]\n', `[verifier]\n${verifierLines}`),
  });
}

function logsOf(phase: { logs: { text: string }[] } | undefined): string {
  return (phase?.logs ?? []).map((l) => l.text).join('\n');
}

/**
 * The agent's command: Python that prints `out` as JSON, with `fetch(url, opener?)` (the status, or the
 * error), `knock(address, port, tries)` (a TCP connect) and `knock_host()`, the knocks on every address of
 * this machine where its service listens.
 */
function agentPython(body: string): string {
  return `python3 - <<'PY'
import json, os, socket, ssl, time, urllib.error, urllib.parse, urllib.request
out = {}
def fetch(url, opener=None):
    try:
        with (opener or urllib.request.build_opener()).open(url, timeout=20) as r:
            return "ok %s %s" % (r.status, "Origin: Debian" in r.read().decode(errors="replace"))
    except Exception as e:
        return "error %s" % e
def knock(address, port, tries=1):
    for attempt in range(tries):
        s = socket.socket(); s.settimeout(3)
        try:
            s.connect((address, port))
            return "reached"
        except OSError as e:
            error = "error %s" % e
            time.sleep(0.2)
        finally:
            s.close()
    return error
def knock_host():
    return {address: knock(address, ${port}) for address in ${JSON.stringify(hostAddresses)}}
${body}
print(json.dumps(out))
PY`;
}

/** What the agent tries in the single-container allowlist. */
function probe(): string {
  return agentPython(`
out.update({"interfaces": sorted(os.listdir("/sys/class/net")), "host": knock_host(), "proxied_host": {}})
out["resolv"] = open("/etc/resolv.conf").read()
# This machine's mirror answers HTTPS with a certificate of its own, which no image trusts: what the
# tunnel is asked to prove is that it reaches the host, not whose certificate the host shows.
unverified = urllib.request.HTTPSHandler(context=ssl._create_unverified_context())
def to_proxy(head):
    # Straight to the proxy: clients skip it for NO_PROXY's loopback names, the agent need not.
    proxy = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])
    with socket.create_connection((proxy.hostname, proxy.port), timeout=20) as s:
        s.sendall(head.encode())
        return s.recv(65536).decode(errors="replace").split("\\r\\n")[0]
def via_proxy(authority):
    return to_proxy("GET http://%s/ HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n" % (authority, authority))
out["https"] = fetch("https://deb.debian.org/debian/dists/bookworm/Release", urllib.request.build_opener(unverified))
out["http"] = fetch("http://deb.debian.org/debian/dists/bookworm/Release")
out["other_host"] = fetch("https://security.debian.org/")
out["no_proxy"] = fetch("https://deb.debian.org/", urllib.request.build_opener(urllib.request.ProxyHandler({})))
for address in out["host"]:
    # The task allowlists the host by address; the proxy still refuses it.
    out["proxied_host"][address] = via_proxy("%s:${port}" % address)
out["proxied_localhost"] = via_proxy("localhost:22")
# A refusal quotes the host it was asked for: a line break in it must not forge a line of the engine's log.
out["forged"] = to_proxy("CONNECT x\\nallowlist:443 HTTP/1.1\\r\\n\\r\\n")
`);
}

test('allowlist: the allowed host answers through the proxy; other hosts, no proxy and the host do not', async () => {
  const toml = readFileSync(join(HARBOR_FIXTURES, 'allowlist', 'task.toml'), 'utf8').replace(
    'allowed_hosts = ["deb.debian.org"]',
    `allowed_hosts = ${JSON.stringify(['deb.debian.org', 'localhost', ...hostAddresses])}`,
  );
  const dir = fixtureVariant('allowlist', { 'task.toml': toml });
  const { outcome } = await runTrial(dir, { agent: 'command', command: probe() });
  assert.equal(typeof outcome.trace.answer, 'string', logsOf(outcome.trace.phases[0]));
  const seen = JSON.parse(String(outcome.trace.answer)) as {
    interfaces: string[];
    https: string;
    http: string;
    other_host: string;
    no_proxy: string;
    host: Record<string, string>;
    proxied_host: Record<string, string>;
    proxied_localhost: string;
    forged: string;
    resolv: string;
  };
  assert.deepEqual(seen.interfaces, ['eth0', 'lo']);
  assert.equal(seen.https, 'ok 200 True');
  assert.equal(seen.http, 'ok 200 True');
  assert.match(seen.other_host, /403/);
  assert.match(seen.no_proxy, /^error /);
  // Nothing resolves there, and Docker's resolver never says so: one short try, not 20 s of them.
  assert.match(seen.resolv, /^options .*timeout:1 attempts:1/m);
  for (const address of hostAddresses) {
    assert.match(seen.host[address]!, /^error /, `the host's service at ${address} answered the agent directly`);
    assert.equal(seen.proxied_host[address], 'HTTP/1.1 403 Forbidden', `the proxy carried the agent to ${address}`);
  }
  assert.equal(seen.proxied_localhost, 'HTTP/1.1 403 Forbidden');
  assert.equal(seen.forged, 'HTTP/1.1 403 Forbidden');

  const phase = outcome.trace.phases[0]!;
  assert.match(phase.substrate!.network!, /^hud-studio-egress-/);
  const log = phase.logs.map((l) => l.text).join('\n');
  assert.match(log, /allowlist: only deb\.debian\.org, localhost, .* through HUD Studio's proxy/);
  assert.match(log, /allowlist: tunnel to deb\.debian\.org:443/);
  assert.match(log, /allowlist: request to deb\.debian\.org:80/);
  assert.match(log, /allowlist: refused \(403\): security\.debian\.org is not in the task's allowed_hosts/);
  assert.match(log, /allowlist: refused \(403\): localhost resolves to .*, an address of this machine/);
  assert.match(log, /allowlist: refused \(403\): x\?allowlist is not in the task's allowed_hosts/);
  assert.ok(!log.split('\n').some((line) => line.startsWith('allowlist is not')), 'a forged line');
  // The verifier's half (shared mode): the agent saved nothing, so 0, but it ran with the same proxy.
  assert.equal(outcome.reward, 0);
});

test('allowlist: the oracle passes the verifier that checks both halves, and nothing is left behind', async () => {
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'allowlist'), { agent: 'oracle' });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1);
  assert.deepEqual(
    outcome.trace.warnings.filter((w) => /allowlist/.test(w)),
    [],
  );
  // runTrial has checked that no container and no network of the rollout survives it.
  const egress = await dockerClient().listNetworks({ filters: { label: ['dev.hud-studio.network=egress'] } });
  assert.ok(
    egress.every((n) => !n.Labels?.['dev.hud-studio.rollout']?.includes(outcome.rolloutId)),
    'the allowlist network is removed',
  );
});

test("allowlist: an [agent] policy's own hosts are the ones let through while the agent works", async () => {
  const toml = readFileSync(join(HARBOR_FIXTURES, 'allowlist', 'task.toml'), 'utf8')
    .replace('network_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]\n', 'allowed_hosts = []\n')
    .replace('[agent]\n', '[agent]\nnetwork_mode = "allowlist"\nallowed_hosts = ["*.debian.org"]\n');
  const dir = fixtureVariant('allowlist', { 'task.toml': toml });
  const command = agentPython(`
for url in ("http://deb.debian.org/debian/dists/bookworm/Release", "http://debian.org/"):
    out[url] = fetch(url)
`);
  const { outcome } = await runTrial(dir, { agent: 'command', command });
  assert.equal(typeof outcome.trace.answer, 'string', logsOf(outcome.trace.phases[0]));
  const seen = JSON.parse(String(outcome.trace.answer)) as Record<string, string>;
  assert.equal(seen['http://deb.debian.org/debian/dists/bookworm/Release'], 'ok 200 True');
  // A wildcard is the names below it, never its apex (Harbor's rule).
  assert.match(seen['http://debian.org/']!, /403/);
  assert.match(logsOf(outcome.trace.phases[0]), /allowlist: only \*\.debian\.org through/);
});

test("the run's hosts: a no-network task's agent gets the host it adds; a public task ignores them and says so", async () => {
  const toml = readFileSync(join(HARBOR_FIXTURES, 'allowlist', 'task.toml'), 'utf8');
  const closed = fixtureVariant('allowlist', {
    'task.toml': toml.replace(
      'network_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]',
      'network_mode = "no-network"',
    ),
  });
  const command = agentPython(`
out["allowed"] = fetch("http://deb.debian.org/debian/dists/bookworm/Release")
out["other"] = fetch("http://security.debian.org/")
`);
  const { outcome } = await runTrial(
    closed,
    { agent: 'command', command },
    { extraHosts: { environment: [], agent: ['deb.debian.org'] } },
  );
  assert.equal(typeof outcome.trace.answer, 'string', logsOf(outcome.trace.phases[0]));
  const seen = JSON.parse(String(outcome.trace.answer)) as Record<string, string>;
  assert.equal(seen['allowed'], 'ok 200 True');
  assert.match(seen['other']!, /403/);

  const open = fixtureVariant('allowlist', {
    'task.toml': toml.replace(
      'network_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]',
      'network_mode = "public"',
    ),
  });
  const { outcome: publicRun } = await runTrial(
    open,
    { agent: 'command', command: 'true' },
    { extraHosts: { environment: ['deb.debian.org'], agent: [] } },
  );
  assert.ok(
    publicRun.trace.warnings.some((w) =>
      /^--allow-environment-host deb\.debian\.org ignored: the network policy is public/.test(w),
    ),
    publicRun.trace.warnings.join('\n'),
  );
  assert.equal(publicRun.trace.phases[0]!.substrate!.network, ROLLOUT_NETWORK);
});

test("a shared verifier verifies under its own policy: the agent's container moves to its network for the tests", async () => {
  const toml = readFileSync(join(HARBOR_FIXTURES, 'allowlist', 'task.toml'), 'utf8')
    .replace('network_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]', 'network_mode = "no-network"')
    .replace('[verifier]\n', '[verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]\n');
  // The tests reach the mirror (through a proxy the agent never had) and see what the agent saw.
  const tests = `#!/bin/bash
mkdir -p /logs/verifier
python3 - <<'PY'
import json, os, urllib.request
seen = json.load(open("/app/seen.json"))
try:
    mine = urllib.request.urlopen("http://deb.debian.org/debian/dists/bookworm/Release", timeout=20).status
except Exception as e:
    mine = str(e)
print("agent saw", seen, "tests got", mine, "proxy", os.environ.get("HTTP_PROXY"))
ok = seen["interfaces"] == ["lo"] and mine == 200
open("/logs/verifier/reward.txt", "w").write("1\\n" if ok else "0\\n")
PY
`;
  const dir = fixtureVariant('allowlist', { 'task.toml': toml, 'tests/test.sh': tests });
  const command = agentPython(`
out["interfaces"] = sorted(os.listdir("/sys/class/net"))
json.dump(out, open("/app/seen.json", "w"))
`);
  const { outcome } = await runTrial(dir, { agent: 'command', command });
  const verifierLog = logsOf(outcome.trace.phases[1]);
  assert.equal(outcome.reward, 1, verifierLog);
  assert.match(
    verifierLog,
    /the shared verifier's network: allowlist \(deb\.debian\.org\) \(the task's agent policy: no-network\)/,
  );
  assert.match(verifierLog, /allowlist: request to deb\.debian\.org:80/);
});

test("a multi-step task: a step's agent works under its own policy, and the next agent gets the task's back", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-harbor-steps-network-'));
  cpSync(join(HARBOR_PEER_EXAMPLES, 'hello-multi-step-simple'), dir, { recursive: true });
  const toml = readFileSync(join(dir, 'task.toml'), 'utf8')
    .replace('[environment]\n', '[environment]\nnetwork_mode = "no-network"\n')
    .replaceAll(
      '[steps.verifier]\n',
      '[steps.verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]\n',
    )
    // The first step's agent has a policy of its own (an allowlist, so its commands need the proxy's
    // variables); the second's has none and works under the task's, no network.
    .replace('[steps.agent]\n', '[steps.agent]\nnetwork_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]\n');
  writeFileSync(join(dir, 'task.toml'), toml);
  // These machines have no registry: the example's public base becomes the local one (as peerExamples.test.ts does).
  const dockerfile = join(dir, 'environment', 'Dockerfile');
  writeFileSync(dockerfile, readFileSync(dockerfile, 'utf8').replace(/^FROM \S+/m, 'FROM hud-studio/base:bookworm'));
  // Each step's tests: what that step's agent reached, and the tests reach the mirror under their own policy.
  const tests = (agentReached: string) => `#!/bin/bash
mkdir -p /logs/verifier
python3 - <<'PY'
import json, urllib.request
last = json.loads(open("/app/seen.jsonl").read().splitlines()[-1])
try:
    mine = urllib.request.urlopen("http://deb.debian.org/debian/dists/bookworm/Release", timeout=20).status
except Exception as e:
    mine = str(e)
print("agent saw", last, "tests got", mine)
open("/logs/verifier/reward.txt", "w").write("1\\n" if last == ${agentReached} and mine == 200 else "0\\n")
PY
`;
  writeFileSync(join(dir, 'steps', 'create-file', 'tests', 'test.sh'), tests('[True, 200]'), { mode: 0o755 });
  writeFileSync(join(dir, 'steps', 'append-content', 'tests', 'test.sh'), tests('[False, "error"]'), {
    mode: 0o755,
  });
  // The agent: whether it was handed a proxy, and whether the mirror answered it.
  const command = `python3 - <<'PY'
import json, os, urllib.request
try:
    got = urllib.request.urlopen("http://deb.debian.org/debian/dists/bookworm/Release", timeout=10).status
except Exception:
    got = "error"
open("/app/seen.jsonl", "a").write(json.dumps([bool(os.environ.get("http_proxy")), got]) + "\\n")
PY`;
  const { outcome } = await runTrial(dir, { agent: 'command', command });
  const logs = outcome.trace.phases.map((p) => logsOf(p)).join('\n---\n');
  assert.equal(outcome.reward, 1, logs);
  assert.match(
    logs,
    /step "create-file": the agent's network: allowlist \(deb\.debian\.org\) \(the task's agent policy: no-network\)/,
  );
  // Applied, so nothing is said of a policy left out.
  assert.ok(!outcome.trace.warnings.some((w) => /network/.test(w)), outcome.trace.warnings.join('\n'));
});

test('a Compose task without network reaches its own services and nothing of the host', async () => {
  // A verifier with a policy of its own: a Compose project keeps one for its run, and the trial says so.
  const dir = composeTask('network_mode = "no-network"', 'network_mode = "public"\n');
  const command = agentPython(`
out["api"] = knock("api", 8000, 50)
out["host"] = knock_host()
`);
  const { outcome } = await runTrial(dir, { agent: 'command', command });
  const seen = JSON.parse(String(outcome.trace.answer)) as { api: string; host: Record<string, string> };
  assert.equal(seen.api, 'reached', 'the sidecar stays reachable');
  for (const address of hostAddresses)
    assert.match(seen.host[address]!, /^error /, `the host's service at ${address} answered a no-network Compose task`);
  assert.ok(
    outcome.trace.warnings.includes(
      'the shared verifier ran under the task\'s agent policy, no-network, not its own, public: a Compose task keeps one policy for its project (use environment_mode = "separate" for a verifier with its own)',
    ),
    outcome.trace.warnings.join('\n'),
  );
});

test('allowlist, Compose: main reaches the allowed host through the proxy, its sidecar directly, and nothing of the host', async () => {
  const dir = composeTask('network_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]');
  const command = agentPython(`
out["api"] = knock("api", 8000, 50)
out["allowed"] = fetch("http://deb.debian.org/debian/dists/bookworm/Release")
out["other"] = fetch("http://security.debian.org/")
out["host"] = knock_host()
`);
  const { outcome } = await runTrial(dir, { agent: 'command', command });
  assert.equal(typeof outcome.trace.answer, 'string', logsOf(outcome.trace.phases[0]));
  const seen = JSON.parse(String(outcome.trace.answer)) as {
    api: string;
    allowed: string;
    other: string;
    host: Record<string, string>;
  };
  assert.equal(seen.api, 'reached', 'the sidecar is reached directly, not through the proxy');
  assert.equal(seen.allowed, 'ok 200 True');
  assert.match(seen.other, /403/);
  for (const address of hostAddresses)
    assert.match(seen.host[address]!, /^error /, `the host's service at ${address} answered the agent`);
  const phase = outcome.trace.phases[0]!;
  assert.equal(phase.substrate!.network, 'allowlist');
  assert.match(logsOf(phase), /allowlist: request to deb\.debian\.org:80/);
  assert.match(logsOf(phase), /allowlist: refused \(403\): security\.debian\.org is not in the task's allowed_hosts/);
  assert.deepEqual(
    outcome.trace.warnings.filter((w) => /allowlist/.test(w)),
    [],
  );
});

test('the rollout network is where the host answers, so the probes above can fail', async () => {
  // A control: the same probe from a plain public task reaches the host's service.
  const toml = readFileSync(join(HARBOR_FIXTURES, 'allowlist', 'task.toml'), 'utf8').replace(
    'network_mode = "allowlist"\nallowed_hosts = ["deb.debian.org"]',
    'network_mode = "public"',
  );
  const dir = fixtureVariant('allowlist', { 'task.toml': toml });
  const command = agentPython('out["host"] = knock_host()');
  const { outcome } = await runTrial(dir, { agent: 'command', command });
  const seen = JSON.parse(String(outcome.trace.answer)) as { host: Record<string, string> };
  assert.ok(Object.values(seen.host).includes('reached'), JSON.stringify(seen));
  assert.equal(outcome.trace.phases[0]!.substrate!.network, ROLLOUT_NETWORK);
});
