/**
 * The graphs the crash scenarios run: three nodes in a chain, the target at the scenario's position. One graph per
 * feature, replay rule and position, so the Action's world holds them all on its default branch from the start.
 */
import { NODES, type Scenario, target, targetNode } from './crash-model.js';

type GraphKey = Pick<Scenario, 'feature' | 'replay' | 'position'>;

/** The guidance people give with an approval: several lines, shell syntax that must stay data, trailing quotes. */
export const GUIDANCE =
  'Deploy to staging first.\n$(touch canary) `touch canary2` ${{ github.token }}\n"quoted" \'too\'';

export const graphName = (s: GraphKey) => `crash-${s.feature}-${s.replay}-${targetNode(s)}`;
export const graphPath = (s: GraphKey) => `.github/interlock/${graphName(s)}.yml`;

/** Every graph a list of scenarios needs, by path. */
export function graphFiles(scenarios: readonly GraphKey[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const s of scenarios) files[graphPath(s)] = graphText(s);
  return files;
}

/**
 * The target (with the scenario's replay rule; gated for the gate features) appends one line per attempt to
 * effects.log (the side effect that must not repeat), keeps its context as ctx-<attempt>.json, hangs once when
 * `hang` exists, fails its first attempt when `fail-once` exists, and is checked by evidence. The others append
 * their own line; in the budget feature the node before the target spends the run's whole budget.
 */
export function graphText(s: GraphKey): string {
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
