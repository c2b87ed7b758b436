/**
 * Replays a step's log through the runner's command manager (see runner-commands.ts): what the runner would have
 * done with each line, including `stop-commands` and its resume token, which it honours as
 * actions/runner's ActionCommandManager does (the token becomes a registered command until it is seen again).
 */
import { parseLegacy, parseRunnerFile, parseV2, RUNNER_COMMANDS, runnerLines } from './runner-commands.js';

export interface Annotation {
  kind: 'error' | 'warning' | 'notice';
  message: string;
  properties: Record<string, string>;
}

export interface RunnerView {
  /** Step outputs: `set-output` commands, then the GITHUB_OUTPUT file (the runner processes it after the step). */
  outputs: Record<string, string>;
  masks: string[];
  annotations: Annotation[];
  /** `set-env` (refused by today's runners unless ACTIONS_ALLOW_UNSECURE_COMMANDS) and `add-path` attempts. */
  env: Record<string, string>;
  paths: string[];
  state: Record<string, string>;
  /** Every line the runner took as a command, in order (the stop and resume lines included). */
  commands: string[];
  /** Whether commands are stopped when the log ends, and with which token. */
  stopped: boolean;
  stopToken?: string;
  /** What would fail the step: a bad stop token, a GITHUB_OUTPUT the runner cannot read. */
  errors: string[];
}

/** Tokens the runner refuses for `stop-commands` (unless ACTIONS_ALLOW_UNSECURE_STOP_COMMAND_TOKENS). */
function badToken(token: string, registered: ReadonlySet<string>): boolean {
  return !token || registered.has(token.toLowerCase()) || token.toLowerCase() === 'pause-logging';
}

function apply(view: RunnerView, name: string, props: Record<string, string>, data: string): void {
  switch (name) {
    case 'set-output':
      if (props.name) view.outputs[props.name] = data;
      else view.errors.push("Required field 'name' is missing in ##[set-output] command.");
      break;
    case 'save-state':
      if (props.name) view.state[props.name] = data;
      break;
    case 'set-env':
      if (props.name) view.env[props.name] = data;
      break;
    case 'add-path':
      view.paths.push(data);
      break;
    case 'add-mask':
      if (data.trim()) view.masks.push(data);
      break;
    case 'error':
    case 'warning':
    case 'notice':
      view.annotations.push({ kind: name, message: data, properties: props });
      break;
  }
}

/** What the runner would have done with `log` (stdout and stderr alike) and the step's GITHUB_OUTPUT text. */
export function interpretRunnerLog(log: string, outputFile = ''): RunnerView {
  const registered = new Set<string>(RUNNER_COMMANDS);
  const view: RunnerView = {
    outputs: {},
    masks: [],
    annotations: [],
    env: {},
    paths: [],
    state: {},
    commands: [],
    stopped: false,
    errors: [],
  };
  for (const line of runnerLines(log)) {
    const cmd = parseV2(line, registered) ?? parseLegacy(line, registered);
    if (!cmd) continue;
    const name = cmd.command.toLowerCase();
    if (view.stopped) {
      if (view.stopToken !== undefined && name === view.stopToken.toLowerCase()) {
        registered.delete(name);
        view.stopped = false;
        delete view.stopToken;
        view.commands.push(line);
      }
      continue;
    }
    view.commands.push(line);
    if (name === 'stop-commands') {
      if (badToken(cmd.data, registered)) {
        view.errors.push(`stop-commands with an invalid token "${cmd.data}"`);
        continue;
      }
      view.stopped = true;
      view.stopToken = cmd.data;
      registered.add(cmd.data.toLowerCase());
      continue;
    }
    apply(view, name, cmd.properties, cmd.data);
  }
  const file = parseRunnerFile(outputFile);
  for (const [k, v] of file.pairs) view.outputs[k] = v;
  if (file.error) view.errors.push(`Unable to process file command 'output' successfully: ${file.error}`);
  return view;
}
