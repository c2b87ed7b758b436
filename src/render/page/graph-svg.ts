/**
 * The run's graph as SVG made on the server, without a browser: nodes in layers by their longest path from a
 * root (top to bottom), fixed-size boxes (no text is measured), edges as straight lines, each node coloured by
 * its state as the Mermaid diagram colours it, and its state written too (colour is never the only cue). Pure.
 */
import type { Graph } from '../../graph/model.js';
import type { RunState } from '../../journal/state.js';
import { attentionUnder } from '../instances.js';
import { displayState } from '../status.js';
import { escapeHtml } from './html.js';

const BOX_W = 168;
const BOX_H = 48;
const GAP_X = 24;
const GAP_Y = 40;

/** Fill and text colours by state, the diagram's. */
const COLOURS: Record<string, [string, string]> = {
  completed: ['#1a7f37', '#ffffff'],
  skipped: ['#d0d7de', '#1f2328'],
  inflight: ['#0550ae', '#ffffff'],
  ready: ['#ddf4ff', '#1f2328'],
  held: ['#7d4e00', '#ffffff'],
  escalated: ['#a40e26', '#ffffff'],
  awaiting: ['#6639ba', '#ffffff'],
  pending: ['#ffffff', '#1f2328'],
};

function colourKey(state: RunState, id: string): string {
  const p = state.nodes.get(id);
  if (!p) return 'pending';
  if (p.state === 'pending') return state.checkpoint.ready_nodes.includes(id) ? 'ready' : 'pending';
  if (p.state === 'expanded')
    return attentionUnder(state, id) === 'awaiting_approval'
      ? 'awaiting'
      : (attentionUnder(state, id) ?? 'inflight');
  if (p.state === 'in_flight') return 'inflight';
  if (p.state === 'awaiting_approval') return 'awaiting';
  if (p.state === 'tolerated') return 'escalated';
  return p.state;
}

/** Each node's layer: 0 for a root, else one more than its deepest dependency. */
function layers(graph: Pick<Graph, 'nodes'>): Map<string, number> {
  const depth = new Map<string, number>();
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const visit = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0;
    seen.add(id);
    const deps = byId.get(id)?.depends_on ?? [];
    const d = deps.length ? Math.max(...deps.map((x) => visit(x, seen) + 1)) : 0;
    depth.set(id, d);
    return d;
  };
  for (const n of graph.nodes) visit(n.id, new Set());
  return depth;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The graph as an `<svg>` element (a string of escaped parts). */
export function graphSvg(graph: Pick<Graph, 'nodes' | 'name'>, state: RunState): string {
  const depth = layers(graph);
  const rows: string[][] = [];
  for (const n of graph.nodes) {
    const d = depth.get(n.id)!;
    rows[d] = [...(rows[d] ?? []), n.id];
  }
  const widest = Math.max(1, ...rows.map((r) => r.length));
  const width = widest * (BOX_W + GAP_X) + GAP_X;
  const height = rows.length * (BOX_H + GAP_Y) + GAP_Y;
  const at = new Map<string, { x: number; y: number }>();
  rows.forEach((r, i) => {
    const offset = ((widest - r.length) * (BOX_W + GAP_X)) / 2;
    r.forEach((id, j) => {
      at.set(id, { x: GAP_X + offset + j * (BOX_W + GAP_X), y: GAP_Y / 2 + i * (BOX_H + GAP_Y) });
    });
  });
  const edges = graph.nodes.flatMap((n) =>
    n.depends_on.map((d) => {
      const a = at.get(d)!;
      const b = at.get(n.id)!;
      return `<line x1="${a.x + BOX_W / 2}" y1="${a.y + BOX_H}" x2="${b.x + BOX_W / 2}" y2="${b.y}" stroke="#8c959f" stroke-width="1.5" marker-end="url(#arrow)"/>`;
    }),
  );
  const boxes = graph.nodes.map((n) => {
    const { x, y } = at.get(n.id)!;
    const [fill, ink] = COLOURS[colourKey(state, n.id)] ?? COLOURS.pending!;
    const words = displayState(state, n.id);
    return `<g><title>${escapeHtml(`${n.id}: ${words}`)}</title><rect x="${x}" y="${y}" width="${BOX_W}" height="${BOX_H}" rx="6" fill="${fill}" stroke="#57606a"/><text x="${x + 8}" y="${y + 19}" fill="${ink}" font-weight="600">${escapeHtml(clip(n.id, 24))}</text><text x="${x + 8}" y="${y + 37}" fill="${ink}">${escapeHtml(clip(words, 26))}</text></g>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeHtml(`The graph ${graph.name}: ${graph.nodes.length} nodes coloured by state`)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" style="max-width:100%;height:auto"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#8c959f"/></marker></defs>${edges.join('')}${boxes.join('')}</svg>`;
}
