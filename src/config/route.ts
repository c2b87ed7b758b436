import type { Config, Route } from './schema.js';

interface EventInfo {
  name: string;
  payload: Record<string, unknown>;
}

type RouteMatch = { graph: string; intent: string; index: number } | null;

const list = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

function subjectLabels(payload: Record<string, unknown>): string[] {
  const subject = (payload.issue ?? payload.pull_request) as
    | { labels?: Array<{ name?: string } | string> }
    | undefined;
  return (subject?.labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? '')));
}

/** The first line of a comment, when the comment is a slash command (outside code and quotes). */
function commandLine(body: string): string | undefined {
  const first = body
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)[0]
    ?.trim();
  return first?.startsWith('/') ? first : undefined;
}

function matches(route: Route, ev: EventInfo): boolean {
  if (!list(route.event)!.includes(ev.name)) return false;
  const action = typeof ev.payload.action === 'string' ? ev.payload.action : undefined;
  const actions = list(route.action);
  if (actions && (!action || !actions.includes(action))) return false;
  if (route.label !== undefined) {
    const added = (ev.payload.label as { name?: string } | undefined)?.name;
    const ok =
      action === 'labeled' || action === 'unlabeled'
        ? added === route.label
        : subjectLabels(ev.payload).includes(route.label);
    if (!ok) return false;
  }
  if (route.command !== undefined) {
    const body = (ev.payload.comment as { body?: string } | undefined)?.body ?? '';
    const line = commandLine(body);
    if (!line || !(line === route.command || line.startsWith(`${route.command} `))) return false;
  }
  return true;
}

/** The fixed, first-match routing table: the same intent always picks the same graph. Pure. */
export function route(config: Config, ev: EventInfo): RouteMatch {
  for (let i = 0; i < config.routes.length; i++) {
    const r = config.routes[i]!;
    if (!matches(r, ev)) continue;
    const action = typeof ev.payload.action === 'string' ? `.${ev.payload.action}` : '';
    const detail =
      r.label !== undefined ? ` label=${r.label}` : r.command !== undefined ? ` ${r.command}` : '';
    return { graph: r.graph, intent: `${ev.name}${action}${detail}`, index: i };
  }
  return null;
}
