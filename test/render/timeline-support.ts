/** Helpers for the timeline tests: Mermaid's own reading of a gantt, and the shape of an SVG. */

export interface GanttTask {
  task: string;
  section: string;
  start: number;
  end: number;
  milestone: boolean;
}

/**
 * The tasks Mermaid's parser reads from a gantt. The title is left out: Mermaid cleans a title with DOMPurify,
 * which needs a browser's window; it goes through the same `ganttText` as every task.
 */
export async function ganttTasks(gantt: string): Promise<GanttTask[]> {
  const mermaid = (await import('mermaid')).default;
  const text = gantt.replace(/\n {4}title .*/, '');
  await mermaid.parse(text);
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  type Raw = { task: string; section: string; startTime: Date; endTime: Date; milestone?: boolean };
  const raw = (diagram.db as unknown as { getTasks(): Raw[] }).getTasks();
  return raw.map((t) => ({
    task: t.task.trim(),
    section: t.section,
    start: t.startTime.getTime(),
    end: t.endTime.getTime(),
    milestone: t.milestone === true,
  }));
}

/** What an SVG holds: its row groups' nodes, bars and waits counted, and whether its tags are balanced. */
export function svgShape(svg: string): { rows: string[]; bars: number; waits: number; balanced: boolean } {
  const fromXml = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const rows = [...svg.matchAll(/<g class="row" data-node="([^"]*)">/g)].map((m) => fromXml(m[1]!));
  const stack: string[] = [];
  let balanced = true;
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    const [, close, name, self] = m;
    if (self) continue;
    if (!close) stack.push(name!);
    else if (stack.pop() !== name) balanced = false;
  }
  return {
    rows,
    bars: (svg.match(/<rect class="bar /g) ?? []).length,
    waits: (svg.match(/<rect class="wait /g) ?? []).length,
    balanced: balanced && stack.length === 0 && !/<script|<foreignObject|javascript:/i.test(svg),
  };
}
