/**
 * The Action's schemas parse without zod's compiled fast path (`jitless`). A step parses its inputs, its graph and
 * one journal, once each: compiling a parser for each object schema on its first parse (`new Function`) cost a
 * step's start more than it saved (the journal of a typical run has under 100 events; one of 10,000 parses as
 * fast either way; docs/BENCHMARKS.md, cold start). zod reads the setting as it builds each schema, so this is the
 * first import of src/action/entry.ts, before any module that builds one. The CLI and the App keep the fast path.
 */
import * as z from 'zod';

z.config({ jitless: true });
