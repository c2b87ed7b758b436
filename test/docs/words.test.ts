// One word, one meaning (issue 36; the glossary is "## Words" in docs/ARCHITECTURE.md): every name in src/ that
// holds a reserved word is one the glossary's meaning allows, listed here with that meaning. A name in another
// sense fails with its file and line: rename it (the glossary says to what), or, for a new name in the right
// sense, add it below with its meaning. Names are read with the TypeScript parser, so comments and messages are
// not names; public names (journal fields, graph fields, failpoints the glossary keeps) are listed as such.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FAILPOINTS } from '../../src/os/crash-failpoint.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

interface Name {
  text: string;
  where: string;
  node: ts.Identifier;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every identifier in src/, with its file and line. */
function names(): Name[] {
  const out: Name[] = [];
  for (const file of sourceFiles(SRC)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const rel = relative(ROOT, file);
    const visit = (n: ts.Node): void => {
      if (ts.isIdentifier(n)) {
        const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
        out.push({ text: n.text, where: `${rel}:${line}`, node: n });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

const ALL = names();

/** The names holding `word` that the allowed list does not have, as `name (file:line)`. */
function strays(word: RegExp, allowed: Record<string, string>, skip: (n: Name) => boolean = () => false) {
  const bad = ALL.filter((n) => word.test(n.text) && !(n.text in allowed) && !skip(n));
  return [...new Set(bad.map((n) => `${n.text} (${n.where})`))];
}

/** `x.forEach(...)`: JavaScript's own Array method, not a word of ours. */
const arrayMethod = (n: Name) =>
  n.text === 'forEach' && ts.isPropertyAccessExpression(n.node.parent) && n.node.parent.name === n.node;

describe('one word, one meaning in src/ (docs/ARCHITECTURE.md, ## Words)', () => {
  it('settle names only the /settle verb; every person command is a person command', () => {
    const allowed = {
      settle: "the verb, as a command's kind (`/settle`, `interlock settle`, the page's button)",
      settling: "a person's NodeRecorded of a held or escalated node: a /settle",
      settleNode: '/settle: a person records a held or escalated node as done',
      settleCommand: "the /settle command's words",
      settledReply: 'the reply to /settle',
      settleWords: 'what /settle does, said next to its command',
    };
    expect(strays(/settl/i, allowed)).toEqual([]);
    // The failpoints around any person command's write say so (the glossary: settle is only /settle).
    expect(FAILPOINTS.filter((p) => /settl/i.test(p))).toEqual([]);
    expect(FAILPOINTS).toContain('before-person-command-write');
  });

  it('for_each names only the graph field; what covers sub-graphs too is an expansion', () => {
    const allowed = {
      for_each: 'the graph field',
      ForEach: "the for_each field's type",
      forEachFields: "the for_each field's schema",
      forEachField: "the for_each field's checks",
      checkForEach: "the for_each field's checks",
    };
    expect(strays(/for_?each/i, allowed, arrayMethod)).toEqual([]);
  });

  it("a loop is a loop: repeat names only the graph field, and a cycle is a loop's pass or a dependency cycle", () => {
    const repeat = {
      repeat: 'the graph field `repeat:`',
      Repeat: "the repeat field's type",
      RepeatSchema: "the repeat field's schema",
      checkRepeat: "the repeat field's checks",
      repeatField: "the repeat field's checks",
    };
    expect(strays(/repeat/i, repeat)).toEqual([]);
    const cycle = {
      // One pass of a loop: the journal's word (NodeCycleStarted, `cycle`, the checkpoint's `cycles`).
      cycle: "a loop's pass (the journal's `cycle`)",
      cycles: "the checkpoint's and an escalation report's `cycles`",
      cycled: 'a sub-graph node expanded again for its next pass',
      cycleOf: "each enclosing loop's pass, for a session's path",
      CycleOutcome: "an escalation report's `cycles` entry",
      cyclesMarkdown: "an escalation report's `cycles`, drawn",
      NodeCycleStarted: 'the journal event',
      nodeCycleStarted: "the journal event's reducer",
      DEFAULT_MAX_CYCLES: "the graph field `repeat.max_cycles`'s default",
      MAX_CYCLES_LIMIT: "the graph field `repeat.max_cycles`'s bound",
      // A cycle of the graph (src/graph/cycles.ts), which the graph rules refuse: always a dependency cycle.
      findDependencyCycle: 'a cycle of depends_on',
      dependencyCycle: 'a cycle of depends_on',
    };
    expect(strays(/cycle/i, cycle)).toEqual([]);
  });

  it('budget is the cost limits; the failures a node may still have and retries are not a budget', () => {
    const allowed = {
      budget: 'the `budget:` field (graph, node, repository)',
      Budget: "the budget field's type",
      BudgetObject: "the budget field's object form",
      NodeBudgetField: "a node's budget field",
      RunBudgetField: "the graph's budget field",
      RepoBudget: "the repository's budget",
      RepoBudgetSchema: "the repository's budget, its schema",
      BUDGET_FIELDS: "the repository budget's fields",
      BudgetReport: "an escalation report's budget",
      BudgetReportSchema: "an escalation report's budget, its schema",
      budgetReportMarkdown: "an escalation report's budget, drawn",
      budgetWords: 'a passed cost limit, in words',
      budget_escalated: "the checkpoint's escalation at the budget",
      AtBudget: 'a run at its cost limits',
      escalatedAtBudget: 'a node escalated as its run is at its cost limits',
      nodeBudgetFailures: "an attempt over its node's cost limits",
      runBudgetEscalation: 'a run at its cost limits escalates the node',
      subgraphBudgetEscalation: 'a sub-graph at its cost limits escalates the node',
      overBudget: 'a run over its cost limits',
      resolvedBudget: "a node's cost limits, resolved",
      chainBudget: "a serialized chain's summed cost limits",
    };
    expect(strays(/budget/i, allowed)).toEqual([]);
  });

  it('chain is the serialized chain; the record-and-dispatch write and a promise queue say what they are', () => {
    // Every name here is the serialized chain: a session's nodes dispatched in one write, run in one agent call.
    const serialized = [
      'chain',
      'Chain',
      'ChainMember',
      'ChainOutcome',
      'ChainPart',
      'ChainRules',
      'ChainSchema',
      'ChainTask',
      'INTERLOCK_CHAIN',
      'chainBudget',
      'chainDispatch',
      'chainEnv',
      'chainInputs',
      'chainPrompt',
      'chainTimeoutMinutes',
      'chained',
      'chainedDependencies',
      'decideChainResult',
      'executeChain',
      'inChain',
      'makeChainFiles',
      'readyChain',
    ];
    const allowed = Object.fromEntries(serialized.map((n) => [n, 'the serialized chain']));
    expect(strays(/chain/i, allowed)).toEqual([]);
    // A queue of promises is not a chain (overdue.ts `writes`, live-pacer.ts `publishing`).
    const promiseChains = ALL.filter((n) => {
      const p = n.node.parent;
      return /chain/i.test(n.text) && ts.isVariableDeclaration(p) && /Promise/.test(p.getText());
    });
    expect(promiseChains.map((n) => `${n.text} (${n.where})`)).toEqual([]);
  });

  it('a bare `key` is a key of an object, map or YAML mapping; the four keys say which', () => {
    // Where a binding named `key` is generic: a key of an object, map or mapping, or "point at the key" in an
    // error's place. The idempotency, instance, model and cache keys are named with their noun everywhere.
    const generic = new Set([
      'src/approvals/page/conditional.ts', // a map of conditional requests
      'src/graph/canonical.ts', // an object's keys, sorted
      'src/graph/graph-hash.ts', // an approach's fields
      'src/graph/load/source.ts', // a YAML mapping's key; `key = false`: point at the value
      'src/graph/rules.ts', // `key = false`: point at the value; an approach's fields
      'src/graph/schema/for-each.ts', // `key = false`: point at the value
      'src/graph/schema/subgraph.ts', // a node's fields
      'src/graph/schema/zod-wording.ts', // an unknown field's name
      'src/graph/texts.ts', // an object's entries
      'src/journal/daily-usage.ts', // a map of usage by node
      'src/journal/fold.ts', // a checkpoint field's name
      'src/protocol/attempt/egress.ts', // a map of connections seen
      'src/protocol/daily-cap.ts', // a map of usage by node
      'src/protocol/engines/steps.ts', // a tool input's field
      'src/render/status.ts', // a colour's name
      'src/render/timeline/text.ts', // a legend's entry
      'src/runner/recovery/actions-probe.ts', // a map of jobs by run and attempt
    ]);
    const bindings = ALL.filter((n) => {
      if (n.text !== 'key') return false;
      const p = n.node.parent;
      const binds =
        (ts.isParameter(p) || ts.isVariableDeclaration(p) || ts.isBindingElement(p)) && p.name === n.node;
      return binds && !generic.has(n.where.split(':')[0]!);
    });
    expect(bindings.map((n) => n.where)).toEqual([]);
  });
});
