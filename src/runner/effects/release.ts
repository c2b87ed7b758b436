/**
 * The `release` effect: the GitHub release of a tag, found by its tag (a draft, which has none yet, by the mark
 * in its body) before it is created; a release of the tag that this run did not make is refused, never changed.
 */
import type { Effect } from '../../graph/schema/effect.js';
import { bodyMark, ownBody } from '../../protocol/attempt/effect-marks.js';
import type { EffectSetup } from './effect.js';
import { effectRequest as ask } from './request.js';

export async function release(s: EffectSetup, spec: Extract<Effect, { release: unknown }>['release']) {
  const gh = s.github!;
  const mark = bodyMark(s.idempotencyKey, s.marks.value);
  const ours = (body: string | null | undefined) => ownBody(body, s.idempotencyKey, s.marks.own);
  // A published release is found by its tag; a draft has none yet, so drafts are looked for by the mark.
  const byTag = await ask(() => gh.octokit.rest.repos.getReleaseByTag({ ...gh.repo, tag: spec.tag })).catch(
    (e) => {
      if ((e as { status?: number }).status === 404) return undefined;
      throw e;
    },
  );
  let found = byTag?.data;
  if (!found && spec.draft)
    found = (
      await ask(() => gh.octokit.paginate(gh.octokit.rest.repos.listReleases, { ...gh.repo, per_page: 100 }))
    ).find((r) => ours(r.body));
  if (found && !ours(found.body))
    throw new Error(
      `the release of ${spec.tag} exists and this run did not make it (${found.html_url}): refusing to change it; delete it or name another tag`,
    );
  const made =
    found ??
    (
      await ask(() =>
        gh.octokit.rest.repos.createRelease({
          ...gh.repo,
          tag_name: spec.tag,
          name: spec.name ?? spec.tag,
          body: `${spec.body ?? ''}\n\n${mark}`.trimStart(),
          ...(spec.target ? { target_commitish: spec.target } : {}),
          ...(spec.draft !== undefined ? { draft: spec.draft } : {}),
          ...(spec.prerelease !== undefined ? { prerelease: spec.prerelease } : {}),
          ...(spec.generate_notes !== undefined ? { generate_release_notes: spec.generate_notes } : {}),
        }),
      )
    ).data;
  return {
    evidence: `release ${made.tag_name} (${made.id}) ${found ? 'found by its mark' : 'created'} (${made.html_url})`,
    outputs: { release_id: String(made.id), url: made.html_url, tag: made.tag_name },
  };
}
