/**
 * A value built on its first use and kept. The journal's event schemas are built so, each on its own (a step checks
 * the events of the few types its journal holds), and the graph's error wording, which a graph that loads never
 * needs (docs/BENCHMARKS.md, "CPU of the crash matrix's steps").
 */
export function builtOnce<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
