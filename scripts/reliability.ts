// npm run reliability: the full reliability and security suites (crash points, races, API faults, hostile
// input, injection, fuzzing), and the table of figures docs/RELIABILITY.md holds.
//
//   npm run reliability                        everything (tens of minutes on 2 busy cores)
//   npm run reliability -- --only crash,races  some suites
//   npm run reliability -- --jobs 4            scenarios at once (default: 4 a core, at most 12)
//   npm run reliability -- --write-doc         also rewrite the table in docs/RELIABILITY.md
//   npm run reliability -- --grep 'session:mid-command' --repeat 20
//                                              only the crash scenarios and fault cases whose id matches the
//                                              pattern (a regular expression), each run 20 times; each failure
//                                              is listed with its id and its repetition (#k)
//   npm run reliability -- --table out.md      also write the table (and any failures) to out.md
// The arguments are read and refused before any suite is loaded: a mistyped flag answers at once.
try {
  await import('./reliability-args.js');
} catch (e) {
  process.stderr.write(`npm run reliability: ${(e as Error).message}\n`);
  process.exit(2);
}
await import('./reliability-suites.js');
