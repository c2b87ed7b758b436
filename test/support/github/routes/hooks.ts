/**
 * The App's webhook deliveries (`github/webhooks.ts`), as GitHub serves them to the App's JWT: the list, newest
 * first, paged by cursor (`per_page` up to 100, `cursor`, a `Link` header with `rel="next"`) and filtered by
 * `status` (`success`: a status code 200 to 399, `failure`: 400 to 599); and a redelivery, answered 202 while
 * GitHub sends it. Also the OAuth applications API's token revocation, with the App's client id and secret.
 */
import { HttpError, notFound } from '../http-error.js';
import { type RouteDef, route } from '../router.js';
import type { DeliveryItem } from '../webhooks.js';

const inStatus = (code: number, status: string | null): boolean =>
  status === 'success'
    ? code >= 200 && code <= 399
    : status === 'failure'
      ? code >= 400 && code <= 599
      : true;

export const hookRoutes: RouteDef[] = [
  route(
    'get',
    '/app/hook/deliveries',
    (ctx) => {
      const perPage = Math.min(Math.max(Number(ctx.query.get('per_page')) || 30, 1), 100);
      const cursor = ctx.query.get('cursor');
      const below = cursor ? Number(/^v1_(\d+)$/.exec(cursor)?.[1] ?? Number.NaN) : Number.POSITIVE_INFINITY;
      if (Number.isNaN(below)) throw new HttpError(400, 'Invalid cursor');
      const status = ctx.query.get('status');
      const all = ctx.state.webhooks.deliveries
        .filter((d) => Number(d.id) < below && inStatus(d.status_code, status))
        .sort((a, b) => Number(b.id) - Number(a.id));
      const items: DeliveryItem[] = all.slice(0, perPage).map(({ body: _body, ...item }) => item);
      const headers: Record<string, string> = {};
      if (all.length > perPage) {
        const next = new URL('/app/hook/deliveries', ctx.urls.api);
        next.searchParams.set('per_page', String(perPage));
        next.searchParams.set('cursor', `v1_${items.at(-1)!.id}`);
        if (status) next.searchParams.set('status', status);
        headers.link = `<${next.toString()}>; rel="next"`;
      }
      return ctx.reply(200, items, headers);
    },
    { auth: 'jwt' },
  ),

  route(
    'post',
    '/app/hook/deliveries/{delivery_id}/attempts',
    (ctx) => {
      if (!ctx.state.webhooks.redeliver(Number(ctx.params.delivery_id))) throw notFound();
      return ctx.reply(202, {});
    },
    { auth: 'jwt' },
  ),

  route(
    'delete',
    '/applications/{client_id}/token',
    (ctx) => {
      const token = String(ctx.body.access_token ?? '');
      if (ctx.params.client_id !== `Iv1.${ctx.state.app.slug}`) throw notFound();
      if (!ctx.state.tokens.has(token) || ctx.state.revokedTokens.has(token)) throw notFound();
      ctx.state.revokedTokens.add(token);
      ctx.state.tokens.delete(token);
      return ctx.reply(204, undefined);
    },
    { auth: 'basic' },
  ),
];
