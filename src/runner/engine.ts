/**
 * The engine's public surface, for the faces (Action, App, CLI), tests and benches: one import for reading a run,
 * the compare-and-swap commit, settlement and recovery, a step, and `runSteps`. Each part lives in its own file.
 */
export type { AttemptMark } from './attempt.js';
export { type CommitOptions, commit, StoreUnavailable } from './commit.js';
export type { OverdueNotice } from './overdue.js';
export { type Current, RunRefused, type RunSetup, readRun } from './read.js';
export { type RecoverySetup, recover, settleRun } from './recover.js';
export { type StepResult, type StepSetup, step } from './step.js';
export { runSteps, type StepsOptions, type StepsTarget } from './steps.js';
