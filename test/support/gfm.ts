/**
 * What GitHub makes of the Markdown interlock publishes (issue 46): a real GitHub-flavoured Markdown renderer
 * (micromark with its GFM extensions: tables, autolink literals, strikethrough, footnotes, task lists, the tag
 * filter), raw HTML let through as GitHub lets it through, and the HTML read back with a real parser (parse5).
 * GitHub's own links past GFM (mentions, `#12`, `GH-12`, commit shas) are no Markdown: `gitHubLinks` finds them
 * in the rendered text as GitHub's filters would.
 */
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { parseFragment } from 'parse5';

/** Markdown rendered as GitHub renders a comment, a job summary or a check run's output. */
export function renderGfm(markdown: string): string {
  return micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

interface Node5 {
  nodeName: string;
  value?: string;
  data?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node5[];
  content?: Node5;
}

/** One element of the rendered HTML: its tag and its attributes (`a href=…`), or a comment (`#comment`). */
export interface Element5 {
  tag: string;
  attrs: Record<string, string>;
}

/**
 * The rendered HTML read back: its elements and comments in document order, its text, and its prose: the text
 * outside code, where GitHub links mentions, references and shas.
 */
export function readHtml(html: string): { elements: Element5[]; text: string; prose: string } {
  const elements: Element5[] = [];
  let text = '';
  let prose = '';
  let inCode = 0;
  const walk = (n: Node5) => {
    if (n.nodeName === '#text') {
      text += n.value ?? '';
      if (!inCode) prose += n.value ?? '';
    } else if (n.nodeName === '#comment') elements.push({ tag: '#comment', attrs: { data: n.data ?? '' } });
    else if (!n.nodeName.startsWith('#'))
      elements.push({
        tag: n.nodeName,
        attrs: Object.fromEntries((n.attrs ?? []).map((a) => [a.name, a.value])),
      });
    const code = n.nodeName === 'code' || n.nodeName === 'pre';
    if (code) inCode++;
    for (const c of n.childNodes ?? []) walk(c);
    if (n.content) walk(n.content);
    if (code) inCode--;
  };
  walk(parseFragment(html) as unknown as Node5);
  return { elements, text, prose };
}

/** The rendered Markdown's elements (tag names, in order), text and prose. */
export function renderedShape(markdown: string): ReturnType<typeof readHtml> & { tags: string[] } {
  const read = readHtml(renderGfm(markdown));
  return { ...read, tags: read.elements.map((e) => e.tag) };
}

/**
 * What GitHub would link in rendered text past GFM: a mention (`@alice`, `@org/team`), an issue or pull request
 * reference (`#12`, `GH-12`, `owner/repo#12`), a commit sha (7 to 40 hex digits standing alone).
 */
export function gitHubLinks(text: string): string[] {
  const found = [
    ...text.matchAll(/(?<![\w`])@[A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9][\w.-]*)?/g),
    ...text.matchAll(/(?<![\w&])#\d+/g),
    ...text.matchAll(/\bGH-\d+/gi),
    ...text.matchAll(/(?<![\w])[0-9a-f]{7,40}(?![\w])/g),
  ];
  return found.map((m) => m[0]);
}

/** The text a person reads of rendered Markdown (the zero-width spaces that break links left out). */
export function shownText(markdown: string | undefined): string {
  return readHtml(renderGfm(markdown ?? '')).text.replace(/\u200b/g, '');
}
