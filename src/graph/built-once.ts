/**
 * A value built on its first use and kept. The journal's schemas are built so, each on its own: a step checks the
 * events of the types its journal holds, and building every event's zod schema at start-up was a tenth of the CPU
 * of a step (docs/BENCHMARKS.md, "CPU time of a step").
 */
export function builtOnce<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
