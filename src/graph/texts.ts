/**
 * The untrusted-text rules and expression syntax for the texts an approach writes itself (a node, a retry
 * entry, a skill): `${{` never in `run` or `agent`, templates that parse, conditions that are one expression.
 * Each text is checked once, in the file and at the line where it is written.
 */
import {
  checkTemplate,
  ExpressionSyntaxError,
  findTemplateSpans,
  parseExpression,
  stripDelimiters,
} from '../expressions/evaluate.js';
import type { SourceError } from './errors.js';
import { errorAt, type Path, type SourceDoc } from './load/source.js';
import type { NodeFile } from './schema/schema.js';

/** The fields an approach can set: a node, a retry entry or a skill. */
export type ApproachFields = Pick<
  NodeFile,
  'description' | 'run' | 'prompt' | 'agent' | 'engine' | 'skill' | 'env' | 'timeout_minutes'
>;

/** Why `${{` in an agent command is refused, and what to write instead. */
export const AGENT_EXPRESSION_FIX =
  'expressions are never pasted into a shell script; the agent command reads the prompt on stdin, so put the expression in the prompt (or in env, used as "$NAME")';

/** Untrusted-text rules and template syntax for the texts one approach writes itself. */
export function checkTexts(
  src: SourceDoc,
  fields: ApproachFields,
  base: Path,
  where: (rest: Path) => string,
  errors: SourceError[],
): void {
  if (fields.agent?.includes('${{')) {
    errors.push(
      errorAt(src, [...base, 'agent'], `${where(['agent'])} contains "\${{": ${AGENT_EXPRESSION_FIX}`),
    );
  }
  if (fields.run?.includes('${{')) {
    errors.push(
      errorAt(
        src,
        [...base, 'run'],
        `${where(['run'])} contains "\${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "\${{ github.event.issue.title }}" }) and use "$TITLE" in run`,
      ),
    );
  }
  const check = (text: string, ...rest: Path) => {
    try {
      checkTemplate(text);
    } catch (e) {
      errors.push(errorAt(src, [...base, ...rest], `${where(rest)}: ${(e as Error).message}`));
    }
  };
  if (fields.prompt !== undefined) check(fields.prompt, 'prompt');
  if (fields.env)
    for (const name of Object.keys(fields.env)) {
      const value = fields.env[name];
      if (typeof value === 'string') check(value, 'env', name);
    }
  // An effect's strings are templates too (the node's own fields only: a retry has no effect).
  const effect = (fields as { effect?: Record<string, Record<string, unknown>> }).effect;
  for (const [kind, spec] of Object.entries(effect ?? {}))
    for (const [key, value] of Object.entries(spec ?? {})) {
      if (typeof value === 'string') check(value, 'effect', kind, key);
      if (Array.isArray(value))
        value.forEach((v, i) => {
          if (typeof v === 'string') check(v, 'effect', kind, key, i);
        });
    }
}

/** Each condition must be one expression that parses. */
export function checkConditions(
  src: SourceDoc,
  conditions: string[] | undefined,
  base: Path,
  label: string,
  errors: SourceError[],
): void {
  (conditions ?? []).forEach((c, j) => {
    try {
      if (findTemplateSpans(c).length > 1)
        throw new ExpressionSyntaxError(
          'a condition is one expression: write it as one "${{ }}" (combine parts with && or ||)',
          c,
        );
      parseExpression(stripDelimiters(c));
    } catch (e) {
      errors.push(
        errorAt(
          src,
          [...base, 'execute_conditions', j],
          `${label} execute_conditions[${j}]: ${(e as Error).message}`,
        ),
      );
    }
  });
}
