/**
 * Fault injection: rules that match requests by method and path and, on chosen occurrences,
 * answer with an error, hold the socket, or drop the connection. Every fault that fires is recorded.
 */

export type Fault =
  /** An error status with GitHub's JSON error body (500, 502, 503, 409...). */
  | { readonly kind: 'status'; readonly status: number; readonly message?: string }
  /** 429 with `retry-after`, as GitHub answers when a secondary rate limit is hit. */
  | { readonly kind: 'too-many-requests'; readonly retryAfter?: number }
  /** 403 "You have exceeded a secondary rate limit" with `retry-after`. */
  | { readonly kind: 'secondary-rate-limit'; readonly retryAfter?: number }
  /** 403 "API rate limit exceeded" with `x-ratelimit-remaining: 0` and a reset time. */
  | { readonly kind: 'primary-rate-limit'; readonly resetInSeconds?: number }
  /** Never answer: the socket is held (until `holdMs` passes, then destroyed, or the server closes). */
  | { readonly kind: 'timeout'; readonly holdMs?: number }
  /** Destroy the connection without an answer. */
  | { readonly kind: 'drop' };

export type FaultKind = Fault['kind'];

export interface FaultRule {
  /** HTTP method; any when omitted. */
  readonly method?: string;
  /**
   * Which requests: a RegExp tested on the URL-decoded path, a glob on it (`*` within one segment,
   * `**` across segments), or one of GitHub's templates as the log names them
   * (`/repos/{owner}/{repo}/contents/{path}`). Any path when omitted.
   */
  readonly path?: string | RegExp;
  /** First matching occurrence that faults, counted from 1 (default 1). */
  readonly nth?: number;
  /** How many consecutive matching occurrences fault from `nth` on (default 1; Infinity for every one). */
  readonly times?: number;
  /** Shorthand for `times: Infinity`. */
  readonly every?: boolean;
  /**
   * `before` (default): the request is not carried out. `after`: it is carried out (a write lands)
   * and only the answer is lost, the case where a client cannot know whether its write happened.
   */
  readonly when?: 'before' | 'after';
  readonly fault: Fault;
}

export interface FiredFault {
  readonly rule: number;
  readonly kind: FaultKind;
  readonly method: string;
  readonly path: string;
  /** Which matching occurrence this was, from 1. */
  readonly occurrence: number;
  readonly when: 'before' | 'after';
  readonly at: number;
}

export interface FaultHandle {
  readonly id: number;
  /** Matching requests seen so far. */
  readonly seen: number;
  /** Times this rule fired. */
  readonly fired: number;
  remove(): void;
}

interface LiveRule {
  readonly id: number;
  readonly rule: FaultRule;
  readonly matches: (method: string, path: string, template: string | undefined) => boolean;
  seen: number;
  fired: number;
}

export interface Decision {
  readonly fault: Fault;
  readonly when: 'before' | 'after';
  readonly record: FiredFault;
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .split(/(\*\*|\*)/)
    .map((part) =>
      part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}/?$`);
}

function matcher(rule: FaultRule): LiveRule['matches'] {
  const method = rule.method?.toUpperCase();
  const path = rule.path;
  const test =
    path === undefined
      ? () => true
      : path instanceof RegExp
        ? (actual: string) => path.test(actual)
        : path.includes('{')
          ? (_actual: string, template: string | undefined) => template === path
          : (actual: string) => globToRegExp(path).test(actual);
  return (actualMethod, actualPath, template) =>
    (method === undefined || method === actualMethod) && test(actualPath, template);
}

export class FaultInjector {
  readonly #rules: LiveRule[] = [];
  readonly #fired: FiredFault[] = [];
  #nextId = 1;

  /** Adds a rule; rules are tried in the order added and the first that fires wins. */
  inject(rule: FaultRule): FaultHandle {
    const live: LiveRule = { id: this.#nextId++, rule, matches: matcher(rule), seen: 0, fired: 0 };
    this.#rules.push(live);
    const rules = this.#rules;
    return {
      id: live.id,
      get seen() {
        return live.seen;
      },
      get fired() {
        return live.fired;
      },
      remove() {
        const index = rules.indexOf(live);
        if (index >= 0) rules.splice(index, 1);
      },
    };
  }

  /** Every fault that fired, in order. */
  get fired(): readonly FiredFault[] {
    return this.#fired;
  }

  /** Removes every rule (what fired stays recorded). */
  clear(): void {
    this.#rules.length = 0;
  }

  /** Counts the request against every matching rule; returns the fault to apply, if one fires. */
  decide(method: string, path: string, template: string | undefined): Decision | undefined {
    let decision: Decision | undefined;
    for (const live of this.#rules) {
      if (!live.matches(method, path, template)) continue;
      live.seen += 1;
      if (decision) continue;
      const first = live.rule.nth ?? 1;
      const times = live.rule.every ? Number.POSITIVE_INFINITY : (live.rule.times ?? 1);
      if (live.seen < first || live.seen >= first + times) continue;
      live.fired += 1;
      const when = live.rule.when ?? 'before';
      const record: FiredFault = {
        rule: live.id,
        kind: live.rule.fault.kind,
        method,
        path,
        occurrence: live.seen,
        when,
        at: Date.now(),
      };
      this.#fired.push(record);
      decision = { fault: live.rule.fault, when, record };
    }
    return decision;
  }
}

export const SECONDARY_RATE_LIMIT_MESSAGE =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. ' +
  'If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000:0000:0000.';
