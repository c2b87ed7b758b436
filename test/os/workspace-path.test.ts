// One check confines every graph path from a journal, a route or an input to the workspace (src/os/workspace-path.ts).
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confineToWorkspace, PathRefused, workspaceRelative } from '../../src/os/workspace-path.js';

const FIX = 'give a path inside the repository, relative to its root';

describe('a graph path stays in the workspace', () => {
  it('accepts a relative path inside it, normalised', () => {
    expect(workspaceRelative('./.github/interlock/../interlock/fix.yml')).toBe('.github/interlock/fix.yml');
  });
  it('refuses an absolute path, naming it and the reason', () => {
    expect(() => workspaceRelative('/etc/passwd', 'graph path')).toThrow(
      `graph path "/etc/passwd" is refused: it is absolute; ${FIX}`,
    );
  });
  it('refuses ".." out of the workspace, however it is spelled', () => {
    for (const p of ['../x.yml', 'a/../../x.yml', '..', 'a\\..\\..\\x.yml']) {
      expect(() => workspaceRelative(p)).toThrow(PathRefused);
    }
    expect(() => workspaceRelative('a/../../x.yml')).toThrow(`its ".." leads out of the workspace; ${FIX}`);
  });
  it('refuses a NUL byte', () => {
    expect(() => workspaceRelative('a\0.yml')).toThrow('it holds a NUL byte');
  });
  it('refuses a symlink out of the workspace, and accepts one within it', () => {
    const outside = mkdtempSync(join(tmpdir(), 'interlock-outside-'));
    writeFileSync(join(outside, 'g.yml'), 'x');
    const ws = mkdtempSync(join(tmpdir(), 'interlock-ws-'));
    mkdirSync(join(ws, 'graphs'));
    writeFileSync(join(ws, 'graphs', 'real.yml'), 'x');
    symlinkSync(join(outside, 'g.yml'), join(ws, 'graphs', 'out.yml'));
    symlinkSync(outside, join(ws, 'dir-out'));
    symlinkSync(join(ws, 'graphs', 'real.yml'), join(ws, 'graphs', 'in.yml'));
    expect(() => confineToWorkspace(ws, 'graphs/out.yml')).toThrow(
      /leads through a symlink to .*outside the workspace/,
    );
    expect(() => confineToWorkspace(ws, 'dir-out/g.yml')).toThrow(PathRefused);
    expect(confineToWorkspace(ws, 'graphs/in.yml')).toBe(join(ws, 'graphs', 'in.yml'));
  });
  it('leaves a missing file to the loader, which names it', () => {
    const ws = mkdtempSync(join(tmpdir(), 'interlock-ws-'));
    expect(confineToWorkspace(ws, 'nope.yml')).toBe(join(ws, 'nope.yml'));
  });
});
