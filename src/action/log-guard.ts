/**
 * Keeps what a node prints (and interlock's own lines, which may quote untrusted text) from being read as workflow
 * commands. Plain text goes out between `::stop-commands::<token>` and `::<token>::`, with a fresh random token
 * for each stretch of text, made after the node started and never given to it; interlock's own commands
 * (annotations, groups) go out between stretches, with commands resumed. The runner ends a line at `\r` or `\n`,
 * so a stretch that ends mid-line is ended with a newline before the resume token.
 */
import { randomBytes } from 'node:crypto';

interface LogGuard {
  /** Text that must never act: a node's output, interlock's own messages. */
  text(chunk: string | Buffer): void;
  /** A workflow command interlock means (`::error::…`, `::group::…`). */
  command(line: string): void;
  /** Resumes commands if they are stopped; call before the process exits. */
  close(): void;
}

interface LogGuardOptions {
  write: (s: string | Buffer) => void;
  /** A fresh token; at least 7 characters, so the runner masks it. */
  token?: () => string;
}

const freshToken = () => `interlock-${randomBytes(16).toString('hex')}`;

export function createLogGuard(opts: LogGuardOptions): LogGuard {
  const makeToken = opts.token ?? freshToken;
  let token: string | undefined;
  let atLineStart = true;
  const resume = () => {
    if (token === undefined) return;
    opts.write(`${atLineStart ? '' : '\n'}::${token}::\n`);
    token = undefined;
    atLineStart = true;
  };
  return {
    text(chunk) {
      if (chunk.length === 0) return;
      if (token === undefined) {
        token = makeToken();
        opts.write(`${atLineStart ? '' : '\n'}::stop-commands::${token}\n`);
      }
      opts.write(chunk);
      const last = typeof chunk === 'string' ? chunk.charCodeAt(chunk.length - 1) : chunk[chunk.length - 1];
      atLineStart = last === 0x0a;
    },
    command(line) {
      resume();
      opts.write(line);
      atLineStart = line.endsWith('\n');
    },
    close: resume,
  };
}
