// Reads the commands a recipe shows, so its test runs exactly those and proves it ran every one of them.
import { readFileSync } from 'node:fs';

export interface ShownCommand {
  /** The line as the recipe shows it, without a trailing comment or `&`. */
  text: string;
  /** The words after `interlock`, as a shell would split them. */
  args: string[];
  /** The recipe runs it in the background (`&`). */
  background: boolean;
}

/** Splits a shell line into words (quotes, backslashes); stops at an unquoted `#` comment. */
export function shellWords(line: string): { words: string[]; rest: string } {
  const words: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  let i = 0;
  for (; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i]!;
      else word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
      continue;
    }
    if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i]!;
      continue;
    }
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    if (c === '#' && word === null) break;
    word = (word ?? '') + c;
  }
  if (quote) throw new Error(`unclosed quote in: ${line}`);
  if (word !== null) words.push(word);
  return { words, rest: line.slice(i) };
}

/** The fenced blocks of a language in a Markdown text. */
export function blocks(markdown: string, lang: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) out.push(m[1]!);
  return out;
}

/** Every `interlock …` line in the recipe's `sh` blocks. */
export function interlockCommands(markdown: string): ShownCommand[] {
  const out: ShownCommand[] = [];
  for (const block of blocks(markdown, 'sh')) {
    for (const raw of block.split('\n')) {
      const line = raw.trim();
      if (!line.startsWith('interlock ')) continue;
      const { words, rest } = shellWords(line);
      const background = words[words.length - 1] === '&';
      if (background) words.pop();
      const text = line
        .slice(0, line.length - rest.length)
        .trim()
        .replace(/\s*&$/, '');
      out.push({ text, args: words.slice(1), background });
    }
  }
  return out;
}

/** A recipe page and the record of which of its commands a test ran. */
export class Recipe {
  readonly markdown: string;
  readonly commands: ShownCommand[];
  private readonly ran = new Set<string>();

  constructor(readonly file: URL) {
    this.markdown = readFileSync(file, 'utf8');
    this.commands = interlockCommands(this.markdown);
  }

  /** The command the recipe shows with exactly this text; a test may run only what the page shows. */
  shown(text: string): ShownCommand {
    const c = this.commands.find((x) => x.text === text);
    if (!c)
      throw new Error(
        `${this.file.pathname} shows no command "${text}"; it shows:\n${this.commands.map((x) => `  ${x.text}`).join('\n')}`,
      );
    this.ran.add(text);
    return c;
  }

  /** The commands the page shows that no test ran. */
  notRun(): string[] {
    return this.commands.map((c) => c.text).filter((t) => !this.ran.has(t));
  }
}
