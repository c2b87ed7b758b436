// What a node can find of the model keys, run by an agent's own tool (its Bash or exec_command): the key variables
// of its environment, its /proc/self/environ, the environ and memory of the interlock process above it (the key
// proxy's), and every file it can read under its home, the workspace, the temp folder and the engine's folder.
// The tests' real keys all hold one marker (below); what holds it is written to the report (argv[2]) as found.
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Spelled in two parts, so that this file does not hold the marker itself.
const MARK = new RegExp(`sk-(ant-)?${'REAL'}${'KEY'}-[0-9a-f]{24}`, 'g');
const MARK_BYTES = Buffer.from(`${'REAL'}${'KEY'}-`);
const found = (text) => [...new Set(text.match(MARK) ?? [])];
const tryRead = (path) => {
  try {
    return readFileSync(path, 'latin1');
  } catch (e) {
    return `unreadable: ${e.code}`;
  }
};

/** The interlock process above this one: the action (dist/index.js) or the CLI (dist/cli.js). */
function interlockPid() {
  let pid = process.ppid;
  for (let i = 0; i < 12 && pid > 1; i++) {
    if (/dist\/(index|cli)\.js/.test(tryRead(`/proc/${pid}/cmdline`))) return pid;
    pid = Number(tryRead(`/proc/${pid}/stat`).split(') ')[1]?.split(' ')[1]);
  }
  return undefined;
}

/** The process's writable memory, searched for the marker (where the kernel lets this user open it). */
function memory(pid) {
  let fd;
  try {
    fd = openSync(`/proc/${pid}/mem`, 'r');
  } catch (e) {
    return `unreadable: ${e.code}`;
  }
  const hits = new Set();
  try {
    for (const line of tryRead(`/proc/${pid}/maps`).split('\n')) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) rw/.exec(line);
      if (!m) continue;
      const start = Number.parseInt(m[1], 16);
      const size = Math.min(Number.parseInt(m[2], 16) - start, 64 << 20);
      const buf = Buffer.alloc(size);
      try {
        readSync(fd, buf, 0, size, start);
      } catch {
        continue;
      }
      if (buf.includes(MARK_BYTES)) for (const h of found(buf.toString('latin1'))) hits.add(h);
    }
  } finally {
    closeSync(fd);
  }
  return hits.size ? [...hits].join(' ') : 'read, nothing found';
}

/** Files under `roots` this user can read that hold the marker (bounded: depth, entries, size; no symlinks). */
function files(roots) {
  const hits = [];
  let seen = 0;
  const walk = (dir, depth) => {
    if (depth > 6 || ++seen > 5000) return;
    let names;
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p, depth + 1);
      else if (st.isFile() && st.size < 1 << 20 && ++seen <= 5000) {
        try {
          const bytes = readFileSync(p);
          if (bytes.includes(MARK_BYTES) && found(bytes.toString('latin1')).length) hits.push(p);
        } catch {
          // unreadable for this user
        }
      }
    }
  };
  for (const r of new Set(roots.filter(Boolean))) walk(r, 0);
  return hits;
}

const pid = interlockPid();
const names = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OPENAI_BASE_URL',
  'GEMINI_API_KEY',
  'GOOGLE_GEMINI_BASE_URL',
  'COPILOT_PROVIDER_API_KEY',
  'COPILOT_PROVIDER_BASE_URL',
];

/** The real keys in the environ of the processes between this one and interlock (the agent CLI's own among them). */
function ancestorsEnviron(stop) {
  const hits = new Set();
  let pid = process.ppid;
  for (let i = 0; i < 12 && pid > 1 && pid !== stop; i++) {
    for (const k of found(tryRead(`/proc/${pid}/environ`))) hits.add(k);
    pid = Number(tryRead(`/proc/${pid}/stat`).split(') ')[1]?.split(' ')[1]);
  }
  return [...hits];
}
const report = {
  env: Object.fromEntries(names.map((n) => [n, process.env[n] ?? null])),
  noProxy: process.env.NO_PROXY ?? null,
  selfEnviron: found(tryRead('/proc/self/environ')),
  agentEnviron: ancestorsEnviron(pid),
  interlockPid: pid ?? null,
  interlockEnviron: pid
    ? found(tryRead(`/proc/${pid}/environ`)).join(' ') || tryRead(`/proc/${pid}/environ`).slice(0, 40)
    : 'no process',
  interlockMem: pid ? memory(pid) : 'no process',
  files: files([
    process.env.HOME,
    process.cwd(),
    tmpdir(),
    process.env.RUNNER_TEMP,
    process.env.CLAUDE_CONFIG_DIR,
    process.env.CODEX_HOME,
    process.env.GEMINI_CLI_HOME,
    process.env.COPILOT_HOME,
  ]),
};
writeFileSync(process.argv[2], JSON.stringify(report, null, 2));
