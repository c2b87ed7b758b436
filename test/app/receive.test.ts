// `npm run receive`: a saved payload file delivered to the App's handler, signed, through the App's own HTTP path.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseReceiveArgs, receive } from '../../src/app/receive.js';
import { approvalDelivery, appServerEnv, observe, startWorld, type World } from './world.js';

let world: World | undefined;
let dir: string | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function saved(name: string, text: string): string {
  dir ??= mkdtempSync(join(tmpdir(), 'interlock-receive-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('npm run receive', () => {
  it('delivers a saved /approve-rerun payload to the App in this process, which approves once', async () => {
    world = await startWorld();
    await world.seedRun();
    const { ev, body } = approvalDelivery(world);
    const file = saved('comment.json', body);
    const { WEBHOOK_SECRET: _unused, ...env } = appServerEnv(world, 'ignored');
    const answer = await receive(parseReceiveArgs(['--event', 'issue_comment', file]), env);
    expect(answer.status).toBe(200);
    expect(observe(world, ev.payload.comment.id).approvals).toHaveLength(1);
  });

  it('names the file when it is not JSON', async () => {
    const file = saved('broken.json', '{"action": ');
    await expect(receive({ event: 'issue_comment', file }, {})).rejects.toThrow(
      /broken\.json: not a readable JSON payload/,
    );
  });

  it('asks for --event and one file, with the usage', () => {
    expect(() => parseReceiveArgs(['comment.json'])).toThrow(
      /--event is missing[\s\S]*usage: npm run receive/,
    );
    expect(() => parseReceiveArgs(['--event', 'push'])).toThrow(/exactly one payload file/);
    expect(parseReceiveArgs(['--event', 'push', '--url', 'http://x/hook', 'p.json'])).toEqual({
      event: 'push',
      file: 'p.json',
      url: 'http://x/hook',
    });
  });
});
