import { data, Evaluator, type Expr, Lexer, Parser } from '@actions/expressions';
import { falsy } from '@actions/expressions/result';

/** The context names an expression may read. */
const CONTEXT_NAMES = ['github', 'inputs', 'nodes', 'run', 'item', 'index'] as const;

/** Plain JSON data for each context. */
export type ExpressionContext = Partial<Record<(typeof CONTEXT_NAMES)[number], unknown>>;

export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly expression: string,
  ) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

/** Strips one surrounding `${{ }}` if present. */
export function stripDelimiters(text: string): string {
  const t = text.trim();
  if (t.startsWith('${{') && t.endsWith('}}')) return t.slice(3, -2).trim();
  return t;
}

/**
 * Parses an expression (without delimiters); throws ExpressionSyntaxError. `without` names contexts it may not
 * read (a node without `for_each` has no `item`).
 */
export function parseExpression(expression: string, options: { without?: string[] } = {}): Expr {
  try {
    const lexed = new Lexer(expression).lex();
    const names = CONTEXT_NAMES.filter((n) => !options.without?.includes(n));
    return new Parser(lexed.tokens, names, []).parse();
  } catch (err) {
    throw new ExpressionSyntaxError(
      `invalid expression "${expression}": ${(err as Error).message}`,
      expression,
    );
  }
}

function toData(value: unknown): data.ExpressionData {
  return JSON.parse(JSON.stringify(value ?? null), data.reviver) as data.ExpressionData;
}

function contextDictionary(ctx: ExpressionContext): data.Dictionary {
  const dict = new data.Dictionary();
  for (const name of CONTEXT_NAMES) dict.add(name, toData(name in ctx ? ctx[name] : {}));
  return dict;
}

function evaluateExpr(expression: string, ctx: ExpressionContext): data.ExpressionData {
  const ast = parseExpression(expression);
  return new Evaluator(ast, contextDictionary(ctx)).evaluate();
}

/** Evaluates an expression (with or without `${{ }}`) to plain JSON: a list stays a list (`for_each`). */
export function evaluateValue(expression: string, ctx: ExpressionContext): unknown {
  return JSON.parse(JSON.stringify(evaluateExpr(stripDelimiters(expression), ctx), data.replacer));
}

/** Evaluates an expression to its string value, as a template span would print it. */
export function evaluateString(expression: string, ctx: ExpressionContext): string {
  const value = evaluateExpr(stripDelimiters(expression), ctx);
  return value.kind === data.Kind.Null ? '' : value.coerceString();
}

/** Evaluates a condition (with or without `${{ }}`) to a boolean, GitHub's truthiness rules. */
export function evaluateCondition(condition: string, ctx: ExpressionContext): boolean {
  return !falsy(evaluateExpr(stripDelimiters(condition), ctx));
}

/** A `${{ … }}` span inside a template. */
interface TemplateSpan {
  start: number;
  end: number;
  expression: string;
}

/** Finds every `${{ … }}` span; quotes inside the expression may hold `}}`. */
export function findTemplateSpans(text: string): TemplateSpan[] {
  const spans: TemplateSpan[] = [];
  let i = 0;
  while (true) {
    const open = text.indexOf('${{', i);
    if (open < 0) return spans;
    let j = open + 3;
    let inString = false;
    let close = -1;
    while (j < text.length) {
      const ch = text[j];
      if (inString) {
        if (ch === "'") {
          if (text[j + 1] === "'") j++;
          else inString = false;
        }
      } else if (ch === "'") {
        inString = true;
      } else if (ch === '}' && text[j + 1] === '}') {
        close = j;
        break;
      }
      j++;
    }
    if (close < 0) throw new ExpressionSyntaxError('"${{" is never closed by "}}"', text.slice(open));
    spans.push({ start: open, end: close + 2, expression: text.slice(open + 3, close).trim() });
    i = close + 2;
  }
}

/** Replaces each `${{ expr }}` in text with the expression's string value. */
export function interpolate(text: string, ctx: ExpressionContext): string {
  const spans = findTemplateSpans(text);
  if (spans.length === 0) return text;
  let out = '';
  let last = 0;
  for (const span of spans) {
    out += text.slice(last, span.start);
    const value = evaluateExpr(span.expression, ctx);
    out += value.kind === data.Kind.Null ? '' : value.coerceString();
    last = span.end;
  }
  return out + text.slice(last);
}

/** Checks the syntax of every expression in a template; throws ExpressionSyntaxError. */
export function checkTemplate(text: string): void {
  for (const span of findTemplateSpans(text)) parseExpression(span.expression);
}
