/**
 * A git object database: blobs, trees, commits and annotated tags, hashed exactly as git hashes
 * them, so every sha the server hands out is the sha git itself would compute.
 */
import { createHash } from 'node:crypto';

export type EntryMode = '100644' | '100755' | '040000' | '160000' | '120000';
export type EntryType = 'blob' | 'tree' | 'commit';

export interface GitBlob {
  readonly type: 'blob';
  readonly sha: string;
  readonly content: Buffer;
}

export interface TreeEntry {
  readonly name: string;
  readonly mode: EntryMode;
  readonly type: EntryType;
  readonly sha: string;
}

export interface GitTree {
  readonly type: 'tree';
  readonly sha: string;
  readonly entries: readonly TreeEntry[];
}

export interface GitPerson {
  readonly name: string;
  readonly email: string;
  /** ISO 8601, second precision, UTC. */
  readonly date: string;
}

export interface GitCommit {
  readonly type: 'commit';
  readonly sha: string;
  readonly tree: string;
  readonly parents: readonly string[];
  readonly author: GitPerson;
  readonly committer: GitPerson;
  readonly message: string;
}

export interface GitTag {
  readonly type: 'tag';
  readonly sha: string;
  readonly tag: string;
  readonly message: string;
  readonly object: { readonly sha: string; readonly type: 'commit' | 'tree' | 'blob' };
  readonly tagger: GitPerson;
}

export type GitObject = GitBlob | GitTree | GitCommit | GitTag;

/** A path inside a tree with the entry found there. */
export interface PathEntry {
  readonly path: string;
  readonly mode: EntryMode;
  readonly type: EntryType;
  readonly sha: string;
}

/** What to put at a path when building a tree: an entry, or null to delete it. */
export type TreeChange = { readonly mode: EntryMode; readonly type: EntryType; readonly sha: string } | null;

const hashObject = (kind: string, body: Buffer): string =>
  createHash('sha1')
    .update(Buffer.concat([Buffer.from(`${kind} ${body.length}\0`), body]))
    .digest('hex');

/** Git orders tree entries by name, comparing a subtree as if its name ended in "/". */
const sortKey = (entry: TreeEntry): string => (entry.type === 'tree' ? `${entry.name}/` : entry.name);

const personLine = (role: string, person: GitPerson): string =>
  `${role} ${person.name} <${person.email}> ${Math.floor(Date.parse(person.date) / 1000)} +0000`;

export class ObjectStore {
  readonly #objects = new Map<string, GitObject>();

  get size(): number {
    return this.#objects.size;
  }

  has(sha: string): boolean {
    return this.#objects.has(sha);
  }

  get(sha: string): GitObject | undefined {
    return this.#objects.get(sha);
  }

  blob(sha: string): GitBlob | undefined {
    const object = this.#objects.get(sha);
    return object?.type === 'blob' ? object : undefined;
  }

  tree(sha: string): GitTree | undefined {
    const object = this.#objects.get(sha);
    return object?.type === 'tree' ? object : undefined;
  }

  commit(sha: string): GitCommit | undefined {
    const object = this.#objects.get(sha);
    return object?.type === 'commit' ? object : undefined;
  }

  tag(sha: string): GitTag | undefined {
    const object = this.#objects.get(sha);
    return object?.type === 'tag' ? object : undefined;
  }

  putBlob(content: Buffer): GitBlob {
    const blob: GitBlob = { type: 'blob', sha: hashObject('blob', content), content };
    return this.#keep(blob);
  }

  putTree(entries: readonly TreeEntry[]): GitTree {
    const sorted = [...entries].sort((a, b) =>
      sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0,
    );
    const body = Buffer.concat(
      sorted.map((entry) =>
        Buffer.concat([
          Buffer.from(`${entry.mode.replace(/^0/, '')} ${entry.name}\0`),
          Buffer.from(entry.sha, 'hex'),
        ]),
      ),
    );
    return this.#keep({ type: 'tree', sha: hashObject('tree', body), entries: sorted });
  }

  putCommit(fields: Omit<GitCommit, 'type' | 'sha'>): GitCommit {
    const lines = [
      `tree ${fields.tree}`,
      ...fields.parents.map((parent) => `parent ${parent}`),
      personLine('author', fields.author),
      personLine('committer', fields.committer),
      '',
      fields.message,
    ];
    const sha = hashObject('commit', Buffer.from(lines.join('\n')));
    return this.#keep({ type: 'commit', sha, ...fields });
  }

  putTag(fields: Omit<GitTag, 'type' | 'sha'>): GitTag {
    const lines = [
      `object ${fields.object.sha}`,
      `type ${fields.object.type}`,
      `tag ${fields.tag}`,
      personLine('tagger', fields.tagger),
      '',
      fields.message,
    ];
    const sha = hashObject('tag', Buffer.from(lines.join('\n')));
    return this.#keep({ type: 'tag', sha, ...fields });
  }

  /** The entry at `path` (slash-separated) under a tree, or undefined. The empty path is the tree itself. */
  lookup(treeSha: string, path: string): PathEntry | undefined {
    const parts = path.split('/').filter((part) => part !== '');
    let current: PathEntry = { path: '', mode: '040000', type: 'tree', sha: treeSha };
    for (const part of parts) {
      const tree = current.type === 'tree' ? this.tree(current.sha) : undefined;
      const entry = tree?.entries.find((candidate) => candidate.name === part);
      if (!entry) return undefined;
      current = { path: current.path ? `${current.path}/${part}` : part, ...entryFields(entry) };
    }
    return current;
  }

  /** Every entry under a tree, depth first; `recursive: false` lists only the top level. */
  walk(treeSha: string, recursive = true, prefix = ''): PathEntry[] {
    const tree = this.tree(treeSha);
    if (!tree) return [];
    const out: PathEntry[] = [];
    for (const entry of tree.entries) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      out.push({ path, ...entryFields(entry) });
      if (recursive && entry.type === 'tree') out.push(...this.walk(entry.sha, true, path));
    }
    return out;
  }

  /**
   * A new tree: `base` (or nothing) with `changes` applied. Paths may be nested; missing
   * directories are made and directories left empty are dropped, as git does.
   */
  buildTree(base: string | undefined, changes: ReadonlyMap<string, TreeChange>): GitTree {
    const entries = new Map<string, TreeEntry>();
    for (const entry of base ? (this.tree(base)?.entries ?? []) : []) entries.set(entry.name, entry);

    const nested = new Map<string, Map<string, TreeChange>>();
    for (const [path, change] of changes) {
      const [head, ...rest] = path.split('/').filter((part) => part !== '');
      if (head === undefined) continue;
      if (rest.length === 0) {
        if (change === null) entries.delete(head);
        else entries.set(head, { name: head, ...change });
        continue;
      }
      let inner = nested.get(head);
      if (!inner) {
        inner = new Map();
        nested.set(head, inner);
      }
      inner.set(rest.join('/'), change);
    }
    for (const [name, inner] of nested) {
      const existing = entries.get(name);
      const subtree = this.buildTree(existing?.type === 'tree' ? existing.sha : undefined, inner);
      if (subtree.entries.length === 0) entries.delete(name);
      else entries.set(name, { name, mode: '040000', type: 'tree', sha: subtree.sha });
    }
    return this.putTree([...entries.values()]);
  }

  /** Whether `ancestor` is `descendant` or reachable from it through parents. */
  isAncestor(ancestor: string, descendant: string): boolean {
    const seen = new Set<string>();
    const queue = [descendant];
    while (queue.length > 0) {
      const sha = queue.pop()!;
      if (sha === ancestor) return true;
      if (seen.has(sha)) continue;
      seen.add(sha);
      queue.push(...(this.commit(sha)?.parents ?? []));
    }
    return false;
  }

  #keep<T extends GitObject>(object: T): T {
    const existing = this.#objects.get(object.sha);
    if (existing) return existing as T;
    this.#objects.set(object.sha, object);
    return object;
  }
}

const entryFields = (entry: TreeEntry): Omit<PathEntry, 'path'> => ({
  mode: entry.mode,
  type: entry.type,
  sha: entry.sha,
});
