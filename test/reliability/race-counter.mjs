// Preloaded into CLI processes by the race suite (`node --import`): counts, from outside the bundle, how often
// this process found the journal's lock taken (a wait), took it, and renamed a new journal into place (a write).
// A lock taken without a write is a compare-and-swap conflict: the journal had moved on since it was read.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const counts = { lockWaits: 0, locksTaken: 0, writes: 0 };
const openSync = fs.openSync;
fs.openSync = function patchedOpenSync(path, flags, ...rest) {
  const lock = typeof path === 'string' && path.endsWith('.json.lock') && flags === 'wx';
  try {
    const fd = openSync.call(this, path, flags, ...rest);
    if (lock) counts.locksTaken++;
    return fd;
  } catch (e) {
    if (lock && e.code === 'EEXIST') counts.lockWaits++;
    throw e;
  }
};
const renameSync = fs.renameSync;
fs.renameSync = function patchedRenameSync(from, to) {
  const r = renameSync.call(this, from, to);
  if (String(to).endsWith('.json')) counts.writes++;
  return r;
};
// The bundle imports these as named exports of node:fs (an ES module), which keep the original functions
// unless they are synced with the patched ones: without this the counts stayed 0.
syncBuiltinESMExports();
process.on('exit', () => {
  const file = process.env.INTERLOCK_RACE_COUNTS;
  if (file) fs.appendFileSync(file, `${JSON.stringify({ pid: process.pid, ...counts })}\n`);
});
