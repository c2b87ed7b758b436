/**
 * Whether a comment is interlock's own (issue 45): written by a bot account (the Action's token, the App) and
 * starting with the hidden marker interlock puts first. A marker is plain text anyone can paste or quote, so a
 * person's comment that carries one is never taken for interlock's: every face that finds its own comment by a
 * marker (the progress comment, the attention and overdue notices, the stuck notice) asks this. Pure.
 */

/** The fields of a listed issue comment this reads. */
interface ListedComment {
  body?: string | null;
  user?: { type?: string } | null;
}

export function isOwnComment(c: ListedComment, marker: string): boolean {
  return c.user?.type === 'Bot' && (c.body ?? '').startsWith(marker);
}
