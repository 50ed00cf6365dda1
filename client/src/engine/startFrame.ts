/**
 * The actor's start frame as the HUD SDK's client accepts it before its agent
 * runs (docs/hud-protocol.md, "The prompt"). The prompt is nothing, text, or
 * a list of turns: a turn that is not an object is taken as its text; an
 * object turn needs `content` that is text or one MCP content block. The
 * frame's `bindings`, when present, map capability names to objects.
 * Anything else fails the run under the SDK, so it fails here too, before
 * the agent is asked.
 */
import { ProtocolError } from './errors';

const HINT =
  'yield a string, or a list of turns such as {"role": "user", "content": "..."} (content: text or one MCP content block)';

/** Throws a ProtocolError naming what the SDK's client would refuse in the start frame. */
export function checkStartFrame(frame: Record<string, unknown>): void {
  const bindings = frame['bindings'];
  const bindingsFit =
    bindings === undefined || bindings === null || (isObject(bindings) && Object.values(bindings).every(isObject));
  if (!bindingsFit) {
    throw new ProtocolError(
      `tasks.start returned "bindings" the HUD SDK refuses: they must map capability names to objects: ${preview(bindings)}`,
      { hint: 'yield {"prompt": ..., "bindings": {"<capability>": {...}}}' },
    );
  }
  const why = refusal(frame['prompt']);
  if (why)
    throw new ProtocolError(`tasks.start returned a prompt the HUD SDK cannot give an agent: ${why}`, { hint: HINT });
}

function refusal(prompt: unknown): string | undefined {
  if (prompt === null || prompt === undefined || typeof prompt === 'string') return undefined;
  // The SDK walks a mapping's keys as turns: always text, so always accepted.
  if (isObject(prompt)) return undefined;
  if (!Array.isArray(prompt)) return `a ${typeof prompt} (${preview(prompt)}) is neither text nor a list of turns`;
  for (const [i, turn] of prompt.entries()) {
    if (!isObject(turn)) continue;
    const problem = contentRefusal(turn['content']);
    if (problem) return `turn ${i} ${problem}: ${preview(turn)}`;
  }
  return undefined;
}

function contentRefusal(content: unknown): string | undefined {
  if (typeof content === 'string') return undefined;
  if (!isObject(content))
    return content === undefined ? 'has no "content"' : 'has "content" that is neither text nor an object';
  const need = (...fields: string[]): string | undefined => {
    const missing = fields.filter((f) => typeof content[f] !== 'string');
    return missing.length
      ? `has a "${String(content['type'])}" block without text ${missing.map((f) => `"${f}"`).join(', ')}`
      : undefined;
  };
  switch (content['type']) {
    case 'text':
      return need('text');
    case 'image':
    case 'audio':
      return need('data', 'mimeType');
    case 'resource_link':
      return need('uri', 'name');
    case 'resource': {
      const resource = content['resource'];
      if (!isObject(resource) || typeof resource['uri'] !== 'string')
        return 'has a "resource" block without a "resource" that has a "uri"';
      return typeof resource['text'] === 'string' || typeof resource['blob'] === 'string'
        ? undefined
        : 'has a "resource" block whose resource has neither "text" nor "blob"';
    }
    default:
      return `has "content" of unknown type ${JSON.stringify(content['type'] ?? null)} (text, image, audio, resource_link, resource)`;
  }
}

function isObject(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === 'object' && !Array.isArray(x);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
