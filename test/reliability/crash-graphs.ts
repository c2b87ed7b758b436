/**
 * The graphs the crash scenarios run: three nodes in a chain, the target at the scenario's position. One graph per
 * feature, replay rule and position, so the Action's world holds them all on its default branch from the start.
 */
import { parseGraph } from '../../src/graph/load/load.js';
import type { Graph } from '../../src/graph/model.js';
import { NODES, type Scenario, target, targetNode } from './crash-model.js';

type GraphKey = Pick<Scenario, 'feature' | 'replay' | 'position'>;

/** The guidance people give with an approval: several lines, shell syntax that must stay data, trailing quotes. */
export const GUIDANCE =
  'Deploy to staging first.\n$(touch canary) `touch canary2` ${{ github.token }}\n"quoted" \'too\'';

export const graphName = (s: GraphKey) => `crash-${s.feature}-${s.replay}-${targetNode(s)}`;
export const graphPath = (s: GraphKey) => `.github/interlock/${graphName(s)}.yml`;
/** A subgraph scenario's child graph file, beside its graph. */
const childName = (s: GraphKey) => `${graphName(s)}-child.yml`;

/** Every graph a list of scenarios needs, by path (and the agents' stand-in). */
export function graphFiles(scenarios: readonly GraphKey[]): Record<string, string> {
  const files: Record<string, string> = { [STAND_IN]: STAND_IN_SCRIPT };
  for (const s of scenarios) {
    files[graphPath(s)] = graphText(s);
    for (const [name, text] of Object.entries(childFiles(s))) files[`.github/interlock/${name}`] = text;
  }
  return files;
}

/** The sub-graph files a scenario's graph names, by their path beside it (none but for `subgraph`). */
export function childFiles(s: GraphKey): Record<string, string> {
  return s.feature === 'subgraph' ? { [childName(s)]: childGraphText(s) } : {};
}

/** The scenario's graph, loaded with its sub-graph files as the engine loads them. */
export function scenarioGraph(s: GraphKey): Graph {
  const children = childFiles(s);
  return parseGraph({ path: graphPath(s), text: graphText(s) }, undefined, {
    readGraph: (p) => {
      const text = children[p.replace('.github/interlock/', '')];
      return text === undefined ? undefined : { source: { path: p, text }, readSkill: () => undefined };
    },
  });
}

/** The features whose nodes are prompt nodes with an engine, played by the stand-in. */
export const usesEngine = (s: Pick<Scenario, 'feature'>) =>
  s.feature === 'serialized' || s.feature === 'session' || s.feature === 'stop';

export const STAND_IN = 'claude-stand-in.sh';
/**
 * A stand-in for Claude Code (its stream-json lines), given the target as its first word: one effect line per node
 * of the call (a serialized chain's call does them all), a session id of its own per node and attempt, a hang once
 * when the call holds the target and `hang` exists, and on the target's first attempt with `fail-once`
 * in the stop feature (`overspend`), three model calls and a wait: interlock stops it at its turn budget.
 */
export const STAND_IN_SCRIPT = `#!/usr/bin/env bash
target="$1"
cat > /dev/null
nodes="\${INTERLOCK_CHAIN:-$INTERLOCK_NODE}"
for n in \${nodes//,/ }; do echo "$n $INTERLOCK_ATTEMPT" >> effects.log; done
s="crash-$INTERLOCK_NODE-$INTERLOCK_ATTEMPT"
printf '{"type":"system","subtype":"init","session_id":"%s"}\n' "$s"
# Its transcript, where Claude Code keeps one (a session's folder under isolation).
if [ -n "$CLAUDE_CONFIG_DIR" ]; then mkdir -p "$CLAUDE_CONFIG_DIR/projects/w" && : > "$CLAUDE_CONFIG_DIR/projects/w/$s.jsonl"; fi
echo $$ > pid
case ",$nodes," in *",$target,"*)
  if [ -f hang ]; then rm -f hang; touch started; sleep 300; fi
  if [ -f overspend ] && [ -f fail-once ] && [ "$INTERLOCK_ATTEMPT" = 1 ]; then
    for i in 1 2 3; do printf '{"type":"assistant","message":{"id":"msg_%s","model":"m","usage":{"input_tokens":10,"output_tokens":1}}}\n' "$i"; done
    sleep 300
  fi ;;
esac
printf '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"%s done.","session_id":"%s","usage":{"input_tokens":30,"output_tokens":4}}\n' "$INTERLOCK_NODE" "$s"
`;

/**
 * The agents' graphs: a, b, c prompt nodes of one session (serialized in that feature), the target with the
 * scenario's replay rule and the others safe. The target's check fails while only its first attempt ran and
 * `fail-once` exists; in the stop feature it has a turn budget of 1.
 */
function agentGraphText(s: GraphKey): string {
  const t = target(s);
  const nodes = NODES.map((id, i) => {
    const deps = i ? `    depends_on: [${NODES[i - 1]}]\n` : '';
    const own =
      id === t
        ? `    replay: ${s.replay}\n${s.feature === 'stop' ? '    budget: { turns: 1 }\n' : ''}    validates:
      - file: effects.log
        contains: "^${id} [0-9]+$"
      - command: "! { [ -f fail-once ] && grep -qx '${id} 1' effects.log && ! grep -qx '${id} 2' effects.log; }"\n`
        : '    replay: safe\n';
    return `  - id: ${id}\n${deps}    session: work\n    prompt: Do ${id}.\n${own}`;
  });
  return `interlock: 1
name: ${graphName(s)}
defaults:
  engine: claude-code
  agent: bash ${STAND_IN} ${t} -p
sessions:
  work: { serialized: ${s.feature === 'serialized'} }
nodes:
${nodes.join('')}`;
}

/**
 * The target (with the scenario's replay rule; gated for the gate features) appends one line per attempt to
 * effects.log (the side effect that must not repeat), keeps its context as ctx-<attempt>.json, hangs once when
 * `hang` exists, fails its first attempt when `fail-once` exists, and is checked by evidence. The others append
 * their own line; in the budget feature the node before the target spends the run's whole budget.
 */
export function graphText(s: GraphKey): string {
  if (usesEngine(s)) return agentGraphText(s);
  const t = targetNode(s);
  const watched = target(s).replace(/[[\]]/g, '\\\\$&');
  // A for_each target (issue 28) is one instance, `b[x]`, of a list made when it is ready.
  const forEach =
    s.feature === 'for_each' ? `    for_each: \${{ fromJSON('["x"]') }}\n    key: \${{ item }}\n` : '';
  const gated = s.feature === 'gate' || s.feature === 'guidance';
  const nodes = NODES.map((id, i) => {
    const deps = i ? `    depends_on: [${NODES[i - 1]}]\n` : '';
    const spends = s.feature === 'budget' && NODES[s.position - 1] === id;
    if (id !== t)
      return `  - id: ${id}\n${deps}    replay: safe\n    run: |\n      echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log\n${spends ? `      echo '{"cost_usd": 2}' > "$INTERLOCK_USAGE"\n` : ''}`;
    // A sub-graph target (issue 28) runs its one node, `x`, which is the target's command.
    if (s.feature === 'subgraph') return `  - id: ${id}\n${deps}    graph: ${childName(s)}\n`;
    // A loop (issue 28): done on cycle 2, which is also the cycle that hangs.
    const loop = s.feature === 'loop';
    const cycle2 = `grep -Eq '"cycle": ?2' "$INTERLOCK_CONTEXT"`;
    return `  - id: ${id}
${deps}    replay: ${s.replay}
${forEach}${gated ? '    approval: before\n' : ''}${loop ? `    outputs: [done]\n    repeat:\n      until: \${{ nodes.${id}.outputs.done == 'yes' }}\n` : ''}    run: |
      echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
      cp "$INTERLOCK_CONTEXT" "ctx-$INTERLOCK_ATTEMPT.json"
      echo $$ > pid
${loop ? `      if ${cycle2}; then echo done=yes; else echo done=no; fi >> "$INTERLOCK_OUTPUT"\n` : ''}      if [ -f hang ]${loop ? ` && ${cycle2}` : ''}; then rm -f hang; touch started; sleep 300; fi
      if [ "$INTERLOCK_ATTEMPT" = 1 ] && [ -f fail-once ]; then echo "attempt 1 fails on purpose" >&2; exit 1; fi
    validates:
      - file: effects.log
        contains: "^${watched} [0-9]+$"
`;
  });
  const budget = s.feature === 'budget' ? 'budget: { cost_usd: 1 }\n' : '';
  return `interlock: 1\nname: ${graphName(s)}\n${budget}nodes:\n${nodes.join('')}`;
}

/** A subgraph scenario's child graph: one node, `x`, the target's command under the scenario's replay rule. */
function childGraphText(s: GraphKey): string {
  const t = target({ ...s, feature: 'subgraph' });
  return `interlock: 1
name: child
nodes:
  - id: x
    replay: ${s.replay}
    run: |
      echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
      cp "$INTERLOCK_CONTEXT" "ctx-$INTERLOCK_ATTEMPT.json"
      echo $$ > pid
      if [ -f hang ]; then rm -f hang; touch started; sleep 300; fi
      if [ "$INTERLOCK_ATTEMPT" = 1 ] && [ -f fail-once ]; then echo "attempt 1 fails on purpose" >&2; exit 1; fi
    validates:
      - file: effects.log
        contains: "^${t} [0-9]+$"
`;
}
