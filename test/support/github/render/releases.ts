/** Releases as GitHub shows them. */
import type { Urls } from '../context.js';
import type { ReleaseRecord } from '../records.js';
import type { RepoState } from '../repo-state.js';
import type { Schema } from '../types.js';
import { simpleUser } from './users.js';

export function release(repo: RepoState, urls: Urls, record: ReleaseRecord): Schema<'release'> {
  const api = `${urls.api}/repos/${repo.fullName}`;
  return {
    url: `${api}/releases/${record.id}`,
    html_url: `${urls.web}/${repo.fullName}/releases/tag/${encodeURIComponent(record.tag_name)}`,
    assets_url: `${api}/releases/${record.id}/assets`,
    upload_url: `${urls.api}/repos/${repo.fullName}/releases/${record.id}/assets{?name,label}`,
    tarball_url: `${api}/tarball/${encodeURIComponent(record.tag_name)}`,
    zipball_url: `${api}/zipball/${encodeURIComponent(record.tag_name)}`,
    id: record.id,
    node_id: record.node_id,
    tag_name: record.tag_name,
    target_commitish: record.target_commitish,
    name: record.name,
    body: record.body,
    draft: record.draft,
    prerelease: record.prerelease,
    immutable: false,
    created_at: record.created_at,
    published_at: record.published_at,
    updated_at: record.published_at ?? record.created_at,
    author: simpleUser(repo.env.user(record.author), urls),
    assets: [],
  };
}
