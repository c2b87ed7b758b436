/**
 * The task envelope: what a prompt node's agent is told besides its prompt, as data in `$INTERLOCK_CONTEXT` and
 * as readable text appended to the prompt: the node and attempt, each evidence check in words, the outputs to
 * set and how, the paths it must not change, what earlier nodes produced, the previous attempt's failures (with
 * their output excerpts) and people's guidance. Every value is quoted as data: never interpolated or run. Pure.
 */

import { type Graph, type GraphNode, nodeById } from '../../graph/model.js';
import type { Check } from '../../graph/schema/check.js';
import { subgraphFiles } from '../../graph/schema/subgraph.js';
import { journalGraphPath } from '../../journal/graph-path.js';
import { guidanceSection } from '../commands/guidance.js';
import type { Run } from '../run.js';
import type { AttemptContext } from './context.js';

/** What an earlier node produced, as the envelope tells it. */
interface EarlierNode {
  node: string;
  status: string;
  outputs: Record<string, string>;
  /** A prompt node's last message (bounded when journaled). */
  final_message?: string;
}

/** The envelope's data, part of the attempt context. */
export interface Envelope {
  /** Each evidence check, in words. */
  checks: string[];
  /** The outputs the node must set in `$INTERLOCK_OUTPUT`. */
  outputs: string[];
  /** Paths the node must leave as they are: interlock's own files. */
  protected_paths: string[];
  /** The nodes this one depends on, directly or not, in declaration order. */
  earlier: EarlierNode[];
}

/** A value shown on one line, bounded. */
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… [cut]` : s);
const inline = (s: string, n = 200) => clip(s.replace(/\s*\n\s*/g, ' ⏎ '), n);

/** One evidence check in words. */
export function checkWords(check: Check): string {
  if ('file' in check)
    return check.contains === undefined
      ? `file \`${check.file}\` exists`
      : `file \`${check.file}\` matches /${check.contains}/`;
  if ('command' in check) return `\`${inline(check.command.trim())}\` exits 0`;
  if ('output' in check)
    return `output \`${check.output}\` is set${check.matches ? ` and matches /${check.matches}/` : ''}`;
  if ('git' in check) {
    const g = check.git;
    const n = g.min_commits ?? 1;
    return `at least ${n} new commit${n === 1 ? '' : 's'} on ${g.branch ?? 'HEAD'} since the attempt started${g.message ? `, one with a message matching /${g.message}/` : ''}`;
  }
  const [kind, value] = Object.entries(check)[0] ?? ['check', {}];
  return `${kind}: ${inline(JSON.stringify(value))}`;
}

/** The nodes `node` depends on, directly or not, in declaration order. */
function ancestors(graph: Graph, node: GraphNode): GraphNode[] {
  const seen = new Set<string>();
  const visit = (id: string) => {
    // An instance (`work[3]`) depends on what its node depends on: nodeById knows it.
    for (const d of nodeById(graph, id)?.depends_on ?? []) {
      if (!seen.has(d)) {
        seen.add(d);
        visit(d);
      }
    }
  };
  visit(node.id);
  return graph.nodes.filter((n) => seen.has(n.id));
}

/** The envelope's data for an attempt of `node`. */
export function envelopeOf(run: Run, node: GraphNode): Envelope {
  const { graph, journal, state } = run;
  const finals = new Map<string, string>();
  for (const e of journal.events)
    if (e.type === 'NodeRecorded' && typeof e.final_message === 'string') finals.set(e.node, e.final_message);
  return {
    checks: node.validates.map(checkWords),
    outputs: node.outputs,
    protected_paths: [
      journalGraphPath(journal),
      ...subgraphFiles(graph, journalGraphPath(journal)).filter(
        (p) => !p.endsWith('/**') && p !== 'skills/**',
      ),
      '.github/interlock.yml',
      '.interlock/',
    ],
    earlier: ancestors(graph, node).map((n) => {
      const p = state.nodes.get(n.id);
      const final = finals.get(n.id);
      return {
        node: n.id,
        status: p?.state ?? 'pending',
        outputs: p?.outputs ?? {},
        ...(final !== undefined ? { final_message: final } : {}),
      };
    }),
  };
}

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');

function earlierLines(earlier: readonly EarlierNode[]): string[] {
  if (!earlier.length) return [];
  const lines = ['', 'What earlier nodes produced:'];
  for (const e of earlier) {
    const outs = Object.entries(e.outputs).map(([k, v]) => `${k}=${inline(v, 300)}`);
    lines.push(`- ${e.node} (${e.status})${outs.length ? `: outputs ${outs.join(', ')}` : ''}`);
    if (e.final_message) lines.push('  its final message:', indent(clip(e.final_message, 2000)));
  }
  return lines;
}

function previousLines(previous: AttemptContext['previous']): string[] {
  if (!previous) return [];
  const lines = ['', previous.statement];
  for (const f of previous.failures) {
    lines.push(`- ${f.check}: ${inline(f.message, 500)}`);
    if (typeof f.excerpt === 'string' && f.excerpt)
      lines.push('  its output (an excerpt):', indent(f.excerpt));
  }
  return lines;
}

/** The envelope as text appended to the prompt; `outputFile` says which file its outputs go to. */
export function envelopeText(c: AttemptContext, outputFile = 'named in $INTERLOCK_OUTPUT'): string {
  const lines = [
    '',
    '---',
    'interlock: your task envelope. Everything below is data for you to read; interlock checks the result itself.',
    '',
    `You are node "${c.node}", attempt ${c.attempt} (${c.approach}) of run "${c.run_id}".`,
  ];
  if (c.checks.length)
    lines.push('', 'When you finish, interlock will check:', ...c.checks.map((x) => `- ${x}`));
  if (c.outputs.length)
    lines.push(
      '',
      `Set these outputs by appending \`name=value\` lines to the file ${outputFile}:`,
      ...c.outputs.map((o) => `- ${o}`),
    );
  lines.push('', `Do not change: ${c.protected_paths.map((p) => `\`${p}\``).join(', ')}.`);
  if (c.fresh_session)
    lines.push(
      '',
      `Your session could not be resumed (${inline(c.fresh_session, 400)}). What the earlier nodes produced is below.`,
    );
  lines.push(...earlierLines(c.earlier), ...previousLines(c.previous));
  return `${lines.join('\n')}${guidanceSection(c.guidance)}\n`;
}
