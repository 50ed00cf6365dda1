/**
 * The names the SDK's import check accepts (server/src/analysis/sdkSurface.ts)
 * against the real SDK: each module is imported and what `from <module>
 * import <name>` would find is listed (its `__all__`, its submodules, the
 * other public names it binds). A name the SDK gains or drops fails here,
 * where it would otherwise become a false ImportError in the editor.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { SDK_EXPORTS, SDK_INCIDENTAL } from '../../server/src/analysis/sdkSurface';
import { peerPythonPath } from './peer';

const PROBE = `
import importlib, json, pkgutil, sys
out = {}
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    exports = set(getattr(module, "__all__", []))
    exports |= {m.name for m in pkgutil.iter_modules(module.__path__) if not m.name.startswith("_")}
    public = {n for n in dir(module) if not n.startswith("_")}
    out[name] = {"exports": sorted(exports), "incidental": sorted(public - exports)}
print(json.dumps(out))
`;

interface Surface {
  exports: string[];
  incidental: string[];
}

const sorted = (names: readonly string[] | undefined): string[] => [...(names ?? [])].sort();

test('the import check accepts exactly what the real SDK lets an env file import', () => {
  const modules = Object.keys(SDK_EXPORTS);
  const real = JSON.parse(
    execFileSync('python3', ['-c', PROBE, ...modules], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: peerPythonPath(), PYTHONDONTWRITEBYTECODE: '1' },
    }),
  ) as Record<string, Surface>;
  assert.deepEqual(Object.keys(real).sort(), modules.sort());
  for (const module of modules) {
    const surface = real[module]!;
    assert.deepEqual(sorted(SDK_EXPORTS[module]), sorted(surface.exports), `${module}: __all__ and submodules`);
    assert.deepEqual(sorted(SDK_INCIDENTAL[module]), sorted(surface.incidental), `${module}: other public names`);
  }
});
