/** Users as GitHub shows them (`simple-user`). */
import type { Urls } from '../context.js';
import type { UserRecord } from '../records.js';
import type { Schema } from '../types.js';

/** `simple-user`, with the numeric id some operations' inline copies of it insist on. */
export type SimpleUser = Schema<'simple-user'> & { id: number };

export function simpleUser(user: UserRecord, urls: Urls): SimpleUser {
  const api = `${urls.api}/users/${encodeURIComponent(user.login)}`;
  return {
    login: user.login,
    id: user.id,
    node_id: `U_${Buffer.from(`0:${user.id}`).toString('base64url')}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url:
      user.type === 'Bot'
        ? `${urls.web}/apps/${user.login.replace(/\[bot\]$/, '')}`
        : `${urls.web}/${user.login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: user.type,
    site_admin: false,
    user_view_type: 'public',
  };
}
