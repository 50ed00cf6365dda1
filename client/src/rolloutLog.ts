/**
 * Renders rollout events as lines of the "HUD Rollouts" output channel, in
 * the `hud-rollout-log` language that syntaxes/hud-rollout-log.tmLanguage.json
 * highlights:
 *
 *   HH:MM:SS.mmm #abcd1234 PHASE    KIND     text
 *
 * Columns are fixed so the grammar can key on them and a person can scan them.
 */
import { stripVTControlCharacters } from 'node:util';
import type { RolloutEvent } from '../../common/events';
import { inlineText, score } from './outcome';

const COL = 8;

function time(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '--:--:--.---';
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

function line(e: RolloutEvent, phase: string, kind: string, text: string): string[] {
  const head = `${time(e.at)} #${e.rolloutId.slice(0, 8)} ${phase.padEnd(COL)} ${kind.padEnd(COL)} `;
  // A log chunk may hold several lines (or end without a newline): one output line each.
  const parts = text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  return parts.map((t) => head + stripControl(t));
}

/** Output channels do not render ANSI; control sequences would show as noise. */
function stripControl(s: string): string {
  return stripVTControlCharacters(s).replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

function brief(v: unknown, max = 200): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  const one = s.replace(/\s*\n\s*/g, ' ⏎ ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function formatEvent(e: RolloutEvent): string[] {
  switch (e.type) {
    case 'rollout.queued':
      return line(e, 'rollout', 'queued', e.taskRef);
    case 'rollout.started': {
      const v = e.verifier ? ` verifier ${e.verifier.env}/${e.verifier.id}` : '';
      return line(e, 'rollout', 'started', `${e.task.ref} (${e.task.env}/${e.task.id}, ${e.task.slug})${v}`);
    }
    case 'phase.started': {
      const s = e.substrate;
      const where = s
        ? `${s.provider} ${s.id.slice(0, 12)}${s.image ? ` ${s.image}` : ''} isolation=${s.isolation}`
        : 'no substrate';
      return line(e, e.phase, 'phase', `started on ${where}${e.reused ? ' (reused actor substrate)' : ''}`);
    }
    case 'step':
      return line(e, e.phase, 'step', `${e.step} ${e.status}${e.detail ? `: ${e.detail}` : ''}`);
    case 'log':
      return line(e, e.phase, e.stream, e.text);
    case 'prompt':
      return line(e, 'actor', 'prompt', brief(e.prompt));
    case 'agent.step':
      return line(
        e,
        'actor',
        'agent',
        `step ${e.index}${e.text ? `: ${brief(e.text)}` : ''}${e.toolCalls.length ? ` (${e.toolCalls.map((c) => c.name).join(', ')})` : ''}` +
          (e.usage
            ? ` · tokens in ${e.usage.input} out ${e.usage.output}${e.usage.cached ? ` cached ${e.usage.cached}` : ''}`
            : ''),
      );
    case 'answer':
      return line(e, 'actor', 'answer', brief(e.answer));
    case 'judge.call':
      // The gateway writes each call to its phase's log as well: one line is enough here.
      return [];
    case 'grade': {
      const subs = e.result.subscores.map((s) => `${s.name} ${score(s.value)}`).join(' · ');
      const r = e.result.reward === null ? 'no reward' : `reward ${score(e.result.reward)}`;
      return line(
        e,
        e.phase,
        'grade',
        `${r}${subs ? ` · ${subs}` : ''}${e.authoritative ? '' : ' (provisional)'}${e.result.isError ? ' isError' : ''}`,
      );
    }
    case 'phase.ended':
      return line(e, e.phase, 'phase', `ended ${e.status}${e.error ? `: ${e.error}` : ''}`);
    case 'warning':
      return line(e, e.phase ?? 'rollout', 'warning', e.message);
    case 'rollout.ended': {
      const trace = e.tracePath ? ` trace ${e.tracePath}` : '';
      return line(e, 'rollout', 'ended', `${inlineText(e)}${trace}`);
    }
  }
}
