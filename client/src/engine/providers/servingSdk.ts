/**
 * Which HUD SDK serves an environment (docs/sdk-compatibility.md): the one
 * the image (or the local python) already has when it is a HUD SDK v6 that
 * can serve, else HUD Studio's bundled runtime. `--sdk` / `hudStudio.sdk`
 * override the choice.
 */
import { HudStudioError, UsageError } from '../errors';
import type { ServingSdk } from '../../../../common/trace/schema';

export type SdkChoice = 'auto' | 'bundled' | 'image';
export const SDK_CHOICES: readonly SdkChoice[] = ['auto', 'bundled', 'image'];

/** Which SDK an environment asks to serve it: `--sdk` when given, else the older `--use-image-sdk` switch. */
export function sdkChoiceOf(spec: { sdk?: SdkChoice | undefined; useImageSdk?: boolean | undefined }): SdkChoice {
  return spec.sdk ?? (spec.useImageSdk ? 'image' : 'auto');
}

export const BUNDLED_SDK: ServingSdk = { name: 'hud-studio-bundled', version: '0.0.0+hud-studio', source: 'bundled' };

/**
 * Run by `python3 -c` with no PYTHONPATH of ours: prints the installed SDK as JSON, or null.
 * "Can serve" means the v6 server module and the v6 names (`hud.eval.Task`, `Environment.template`) import.
 */
export const SDK_PROBE_SCRIPT = [
  'import json',
  'try:',
  '    import hud, hud.environment.server as server',
  '    from hud.environment import Environment',
  '    from hud.eval import Task',
  '    version = str(getattr(hud, "__version__", ""))',
  '    ok = callable(getattr(server, "main", None)) and hasattr(Environment, "template") and not version.endswith("+hud-studio")',
  '    print(json.dumps({"version": version, "path": hud.__file__} if ok else None))',
  'except Exception:',
  '    print("null")',
].join('\n');

export function parseSdkChoice(value: string | undefined): SdkChoice {
  if (value === undefined || value === '') return 'auto';
  if ((SDK_CHOICES as readonly string[]).includes(value)) return value as SdkChoice;
  throw new UsageError(`unknown --sdk "${value}"`, { hint: 'use --sdk auto, bundled or image' });
}

/** The probe's stdout as the SDK that would serve, or null when there is none that can. */
export function parseSdkProbe(stdout: string): ServingSdk | null {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    const found: unknown = JSON.parse(last);
    if (!found || typeof found !== 'object') return null;
    const version = (found as Record<string, unknown>)['version'];
    return {
      name: 'hud-python',
      version: typeof version === 'string' && version ? version : 'unknown',
      source: 'image',
    };
  } catch {
    return null;
  }
}

/** Decides who serves from the choice and what the probe found (`where` names the image or interpreter). */
export function decideSdk(choice: SdkChoice, found: ServingSdk | null, where: string): ServingSdk {
  if (choice === 'bundled') return BUNDLED_SDK;
  if (found) return found;
  if (choice === 'image') {
    throw new HudStudioError(
      'provider',
      `${where} has no HUD SDK v6 that can serve (python3 -m hud.environment.server)`,
      {
        hint: 'install hud-python in it, or run with --sdk bundled / --sdk auto',
      },
    );
  }
  return BUNDLED_SDK;
}

/** One probe per image id or interpreter per process: images do not change under a tag's id. */
const probes = new Map<string, Promise<ServingSdk | null>>();
/** What the probes that have finished found. */
const found = new Map<string, ServingSdk | null>();

export function probeOnce(key: string, probe: () => Promise<ServingSdk | null>): Promise<ServingSdk | null> {
  let probing = probes.get(key);
  if (!probing) {
    probing = probe().catch(() => null);
    probes.set(key, probing);
    void probing.then((sdk) => found.set(key, sdk));
  }
  return probing;
}

/** What the probe of `key` found, when it has finished (null: no SDK that can serve); undefined before. */
export function probedAlready(key: string): ServingSdk | null | undefined {
  return found.get(key);
}
