/**
 * Canonical JSON and sha256 addresses: sorted-key JSON gives the same bytes for the same data, and `sha256:` of
 * it names a graph or a journal. Pure (hashing is deterministic); the store and the graph loader both use it.
 */
import { createHash } from 'node:crypto';

/** Sorted-key JSON: the same data always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value));
}

/**
 * A copy with every object's keys in sorted order, for JSON.stringify to write as it is (a replacer function,
 * called back for every value, cost a fifth of loading a large graph).
 */
export function sortedKeys(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(sortedKeys);
  const o = v as Record<string, unknown>;
  if (typeof o.toJSON === 'function') return o;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o).sort()) {
    const value = sortedKeys(o[key]);
    // A key named "__proto__" is a key like any other (assigned, it would set the prototype and vanish).
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true });
    else out[key] = value;
  }
  return out;
}

/** `sha256:<hex>` of a text. */
export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
