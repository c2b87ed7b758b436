// app.yml asks for the least the App needs, and subscribes to every event the App handles.
import { readFileSync } from 'node:fs';
import type { Probot } from 'probot';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { interlockApp } from '../../src/app/probot.js';

const root = new URL('../..', import.meta.url).pathname;
const manifest = parse(readFileSync(`${root}app.yml`, 'utf8')) as {
  default_events: string[];
  default_permissions: Record<string, string>;
};

/** The events the App registers handlers for, from its own `app.on` calls. */
function handledEvents(): string[] {
  const names: string[] = [];
  const fake = {
    on: (events: string | string[]) => names.push(...(Array.isArray(events) ? events : [events])),
  } as unknown as Probot;
  interlockApp()(fake);
  return [...new Set(names.map((n) => n.split('.')[0]!))].sort();
}

describe('app.yml', () => {
  it('asks for exactly the permissions the App uses', () => {
    expect(manifest.default_permissions).toEqual({
      contents: 'write',
      issues: 'write',
      pull_requests: 'write',
      checks: 'write',
      actions: 'write',
      metadata: 'read',
      members: 'read',
    });
  });

  it('subscribes to every event the App handles, and no other', () => {
    expect([...manifest.default_events].sort()).toEqual(handledEvents());
  });
});
