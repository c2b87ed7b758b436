/** Reading engines' text: session ids, one-line messages, JSON lines. Pure. */

/** A session id as the engines write them (a UUID); anything else is not kept. */
export function sessionId(v: unknown): string | undefined {
  return typeof v === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(v) ? v : undefined;
}

/** A message clipped to one readable line. */
export function oneLine(v: unknown, max = 300): string {
  const s = typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '';
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** The JSON objects of a JSON-lines text (other lines are skipped). */
export function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (!l.startsWith('{')) continue;
    try {
      const v: unknown = JSON.parse(l);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a line cut by the stdout bound, or not JSON: skipped
    }
  }
  return out;
}
