/**
 * How `interlock replay` matches a model call to the recording (issue 48): a request is the recorded call it
 * hashes the same as (its method, path and JSON body, less the fields that differ between any two runs of the
 * same agent), taken in the recorded order; a request that matches none departed from the recording, and the
 * first field where it differs from the nearest recorded call is what the replay reports. Pure.
 */
import { createHash } from 'node:crypto';

/** One call of a recording (`<node>-<attempt>.model.jsonl`), as the key proxy kept it. */
export interface RecordedCall {
  call: number;
  method: string;
  path: string;
  request: string;
  status: number;
  answer: string;
}

/**
 * Fields that differ between two runs of the same agent on the same work, and so are not compared: Claude Code's
 * `metadata.user_id` (it names the session), Codex's `prompt_cache_key` (its conversation's id) and
 * `client_metadata` (its turn's ids and start time).
 */
const VOLATILE_FIELDS: readonly string[] = ['metadata.user_id', 'prompt_cache_key', 'client_metadata'];

/**
 * Text that differs between two runs of the same agent, and so is compared as one placeholder: a UUID (the ids
 * Codex gives its input items, `msg_6a8fd47b-…`, and Copilot CLI's session folder in its system prompt), the time
 * Copilot CLI puts before the prompt (`<current_datetime>…</current_datetime>`), the clock in the id Gemini CLI
 * gives a function call (`run_shell_command_1796674920488_0`), how long
 * Codex's command took and its output chunk's id (`Wall time: 0.0512 seconds`, `Chunk ID: 4f2a1c`), and the
 * process ids Gemini CLI's shell tool reports (`Process Group PGID: 4242`, `Background PIDs: 4243`).
 */
const VOLATILE_TEXT: ReadonlyArray<[RegExp, string]> = [
  [/(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])/gi, '(uuid)'],
  [/<current_datetime>[^<]{1,64}<\/current_datetime>/g, '<current_datetime>(varies)</current_datetime>'],
  [/^([A-Za-z][\w-]{0,127})_1\d{12}_(\d+)$/, '$1_(time)_$2'],
  [/Wall time: \d+(?:\.\d+)? seconds/g, 'Wall time: (varies) seconds'],
  [/Chunk ID: [0-9a-f]+/g, 'Chunk ID: (varies)'],
  [/Process Group PGID: \d+/g, 'Process Group PGID: (varies)'],
  [/Background PIDs: \d+(?:, \d+)*/g, 'Background PIDs: (varies)'],
];

/** Fields left out wherever they are: Codex's metadata of an input item (its `create_time` is the clock's). */
const VOLATILE_KEYS: ReadonlySet<string> = new Set(['internal_chat_message_metadata_passthrough']);

/** Every string of a parsed body with its volatile text replaced, and the volatile keys left out. */
function steadied(v: unknown): unknown {
  if (typeof v === 'string') return VOLATILE_TEXT.reduce((t, [re, to]) => t.replace(re, to), v);
  if (Array.isArray(v)) return v.map(steadied);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !VOLATILE_KEYS.has(k))
        .map(([k, x]) => [k, steadied(x)]),
    );
  return v;
}

/** A request as it is compared: its body parsed (or its text), the volatile fields left out. */
export interface ComparedRequest {
  method: string;
  path: string;
  body: unknown;
  hash: string;
}

function withoutField(body: unknown, path: string): void {
  const keys = path.split('.');
  let at: unknown = body;
  for (const k of keys.slice(0, -1)) {
    if (!at || typeof at !== 'object') return;
    at = (at as Record<string, unknown>)[k];
  }
  if (at && typeof at === 'object') delete (at as Record<string, unknown>)[keys.at(-1)!];
}

/** JSON with every object's keys sorted: two bodies that differ only in key order hash the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** The request as compared; `text` is its body (JSON, or compared as text when it is not). */
export function comparedRequest(method: string, path: string, text: string): ComparedRequest {
  let body: unknown = text;
  try {
    body = steadied(JSON.parse(text));
    for (const f of VOLATILE_FIELDS) withoutField(body, f);
  } catch {
    // Not JSON: compared as the text it is.
  }
  const hash = createHash('sha256')
    .update(`${method} ${path}\n${canonical(body)}`)
    .digest('hex');
  return { method, path, body, hash };
}

/** Where two values first differ (a JSON path such as `messages[2].content[0].text`), and how many leaves agreed before. */
function walk(was: unknown, now: unknown, at: string, seen: { leaves: number }): string | undefined {
  if (Array.isArray(was) && Array.isArray(now)) {
    for (let i = 0; i < Math.min(was.length, now.length); i++) {
      const d = walk(was[i], now[i], `${at}[${i}]`, seen);
      if (d !== undefined) return d;
    }
    return was.length === now.length ? undefined : `${at}[${Math.min(was.length, now.length)}]`;
  }
  const isObj = (v: unknown): v is Record<string, unknown> =>
    !!v && typeof v === 'object' && !Array.isArray(v);
  if (isObj(was) && isObj(now)) {
    const keys = [...Object.keys(was), ...Object.keys(now).filter((k) => !(k in was))];
    for (const k of keys) {
      const step = /^[A-Za-z_$][\w$]*$/.test(k) ? `${at ? '.' : ''}${k}` : `[${JSON.stringify(k)}]`;
      const d = walk(was[k], now[k], `${at}${step}`, seen);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (canonical(was) !== canonical(now)) return at || '(the whole body)';
  seen.leaves += 1;
  return undefined;
}

function valueAtPath(body: unknown, path: string): unknown {
  let at: unknown = body;
  for (const m of path.matchAll(/\.?([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (!at || typeof at !== 'object') return undefined;
    const k = m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]!) as string));
    at = (at as Record<string | number, unknown>)[k];
  }
  return at;
}

/**
 * The value at a JSON path the walk gave, shown short (absent: "nothing"); a long text is shown from a
 * little before where it first differs from `other`'s value there.
 */
function valueAt(body: unknown, path: string, other?: unknown): string {
  const at = valueAtPath(body, path);
  if (at === undefined) return 'nothing';
  const text = JSON.stringify(at);
  if (other === undefined || typeof at !== 'string' || text.length <= 120)
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
  // A long text is shown from a little before where it first differs from the other side's.
  const them = JSON.stringify(valueAtPath(other, path) ?? '');
  let i = 0;
  while (i < text.length && text[i] === them[i]) i++;
  const from = Math.max(0, i - 40);
  return `${from ? '...' : ''}${text.slice(from, from + 120)}${from + 120 < text.length ? '...' : ''}`;
}

/** A request that matched no recorded call: the call it is nearest and the first field where they differ. */
export interface Departure {
  /** The recorded call it was compared with (its `call` number), or undefined when none was left to compare. */
  call: number | undefined;
  /** The request's place in the replay (1 for its first model call). */
  request: number;
  field: string | undefined;
  recorded: string;
  now: string;
  message: string;
}

/**
 * The recorded call a request is (the first not yet answered with its hash), or its departure: compared with the
 * unanswered calls of its method and path, the nearest is the one that agrees longest (the most fields alike
 * before the first difference), ties to the earliest.
 */
export function matchCall(
  calls: readonly RecordedCall[],
  compared: readonly ComparedRequest[],
  answered: ReadonlySet<number>,
  req: ComparedRequest,
  place: number,
): { index: number } | { departure: Departure } {
  const open = calls.map((_, i) => i).filter((i) => !answered.has(i));
  const same = open.find((i) => compared[i]!.hash === req.hash);
  if (same !== undefined) return { index: same };
  const near = open.filter((i) => calls[i]!.method === req.method && calls[i]!.path === req.path);
  if (!near.length) {
    const message = `request ${place} (${req.method} ${req.path}) has no recorded call left to answer it: the recording's ${calls.length} calls are ${open.length ? 'other requests' : 'all answered'}`;
    return {
      departure: { call: undefined, request: place, field: undefined, recorded: 'nothing', now: '', message },
    };
  }
  const scored = near.map((i) => {
    const seen = { leaves: 0 };
    return { i, field: walk(compared[i]!.body, req.body, '', seen) ?? '', agreed: seen.leaves };
  });
  scored.sort((a, b) => b.agreed - a.agreed || a.i - b.i);
  const best = scored[0]!;
  const was = calls[best.i]!;
  const recorded = valueAt(compared[best.i]!.body, best.field, req.body);
  const now = valueAt(req.body, best.field, compared[best.i]!.body);
  const message = `request ${place} departs from recorded call ${was.call} at ${best.field}: recorded ${recorded}, now ${now}`;
  return { departure: { call: was.call, request: place, field: best.field, recorded, now, message } };
}
