/**
 * The agent at work (issue 38): a short, current view of an engine's attempt for the progress comment, the step
 * log and `interlock status`: elapsed time, turns and tokens so far against the node's budget, and the last few
 * steps. The steps are the agent's own text, so hostile: they pass the door (src/render/door.ts), which removes the step's
 * secrets and makes them inert.
 */
import type { Budget } from '../../graph/schema/budget.js';
import { amount } from '../../protocol/budget.js';
import type { LiveUsage } from '../../protocol/engines/meter.js';
import type { AgentStep } from '../../protocol/engines/steps.js';
import { throughDoor } from '../door.js';
import { duration } from '../timeline/words.js';

/** What the live view shows of one attempt. */
export interface LiveView {
  node: string;
  attempt: number;
  elapsedMs: number;
  usage: LiveUsage;
  /** Known once the agent ended (Claude Code's result); its stream carries none before. */
  cost_usd?: number;
  budget?: Budget;
  steps: AgentStep[];
  stepCount: number;
  /** `ended`: the agent's command is over; its checks and record follow. */
  state: 'running' | 'ended';
}

/** How many steps the comment and the status show. */
const LIVE_STEPS_SHOWN = 5;

/** `7 of 30 turns · 41,200 of 200,000 tokens · $0.18`: each against the node's budget when it has one. */
export function liveUsageWords(v: Pick<LiveView, 'usage' | 'budget' | 'cost_usd' | 'state'>): string {
  const of = (k: 'turns' | 'tokens', n: number) => {
    const max = v.budget?.[k];
    return max === undefined ? amount(k, n) : `${n.toLocaleString('en-US')} of ${amount(k, max)}`;
  };
  const cost =
    v.cost_usd !== undefined
      ? `${amount('cost_usd', v.cost_usd)}${v.budget?.cost_usd !== undefined ? ` of ${amount('cost_usd', v.budget.cost_usd)}` : ''}`
      : v.state === 'running'
        ? 'cost known at the end'
        : 'no cost reported';
  return [of('turns', v.usage.turns), of('tokens', v.usage.input_tokens + v.usage.output_tokens), cost].join(
    ' · ',
  );
}

function headline(v: LiveView): string {
  const when =
    v.state === 'running'
      ? `running for ${duration(v.elapsedMs)}`
      : `ended after ${duration(v.elapsedMs)}, its evidence is checked next`;
  return `\`${v.node}\` attempt ${v.attempt}: ${when} · ${liveUsageWords(v)}`;
}

/** The hidden marker of the live section, so a later edit finds and replaces it. */
export const LIVE_MARKER = '<!-- interlock:live -->';

/** The live section of the progress comment. */
export function liveMarkdown(v: LiveView, secrets: readonly string[] = []): string {
  const shown = v.steps.slice(-LIVE_STEPS_SHOWN);
  const door = (t: string, max: number) => throughDoor(t, 'line', { secrets, max });
  const steps = shown.map((s) => `- ${door(s.tool, 40)}: ${door(s.arg, 120)}`);
  const earlier = v.stepCount - shown.length;
  return [
    LIVE_MARKER,
    `**${v.state === 'running' ? '🟢 Agent at work' : '⏹ Agent done'}** · ${headline(v)}`,
    '',
    ...(earlier > 0 ? [`<sub>${earlier} earlier step${earlier === 1 ? '' : 's'} not shown</sub>`, ''] : []),
    ...(steps.length ? steps : ['- no step yet']),
  ].join('\n');
}

/** Terminal text: no control characters of the agent's reach the terminal. */
const plain = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

/** One step for the step log or the terminal: `implement · Bash: npm test`, without the step's secrets. */
export function liveStepLine(node: string, s: AgentStep, secrets: readonly string[] = []): string {
  return plain(
    `${node} · ${throughDoor(s.tool, 'plain', { secrets })}: ${throughDoor(s.arg, 'plain', { secrets })}`,
  );
}

/** The live view as terminal lines (`interlock status` while the attempt runs). */
export function liveText(v: LiveView): string {
  const head = plain(headline(v).replace(/`/g, ''));
  return [head, ...v.steps.slice(-LIVE_STEPS_SHOWN).map((s) => `  ${plain(`${s.tool}: ${s.arg}`)}`)].join(
    '\n',
  );
}
