/** An event in a few words, for commit messages and errors: `NodeDispatched build#2`, `RunCompleted`. Pure. */
import type { NewEvent } from './events.js';

export function eventLabel(e: NewEvent): string {
  return 'node' in e ? `${e.type} ${e.node}${'attempt' in e ? `#${e.attempt}` : ''}` : e.type;
}
