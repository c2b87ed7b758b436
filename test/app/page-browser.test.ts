// The maintainers' page in a real browser (issue 37): Debian's Chromium driven by playwright-core, against the App's
// server and the local GitHub. Log in through the local GitHub's authorize page, see two repositories' waiting
// nodes, approve one with guidance (the comment, the dispatch, the row gone), a read-only person sees no button and
// a forged POST is 403, a POST without the CSRF token is refused, a stale page is refused, and an accessibility scan
// (WCAG 2 A and AA) finds nothing on either page. Screenshots go to test-artifacts/ (kept by CI).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageWorld, startPageWorld } from './page-world.js';
import { PEOPLE } from './world.js';

const CHROMIUM = process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url).pathname;
const HAVE = existsSync(CHROMIUM);
if (!HAVE)
  console.warn(`page-browser.test.ts: skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

describe.skipIf(!HAVE)("the maintainers' page in Chromium", () => {
  let pw: PageWorld;
  let browser: Browser;
  beforeAll(async () => {
    pw = await startPageWorld();
    mkdirSync(ARTIFACTS, { recursive: true });
    // Playwright gives each launch a fresh user-data-dir of its own (it refuses one in args); --no-sandbox it adds.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await pw?.close();
  });

  async function logIn(login: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${pw.origin}/interlock/`);
    // The local GitHub's authorize page, as github.com's would be.
    await expect.poll(() => page.url()).toContain('/login/oauth/authorize');
    await page.getByLabel('Sign in as').fill(login);
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL(`${pw.origin}/interlock/`);
    return { context, page };
  }

  async function noViolations(page: Page): Promise<void> {
    const scan = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    expect(
      scan.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    ).toEqual([]);
  }

  const article = (page: Page, repo: string, node: string) =>
    page.locator('article').filter({ has: page.getByRole('heading', { name: `${node} in ${repo}` }) });

  it('logs in, lists both repositories, and passes the accessibility scan on both pages, light and dark', async () => {
    const { context, page } = await logIn(PEOPLE.writer);
    await expect.poll(() => page.getByText('logged in as').textContent()).toContain('@bob');
    expect(await page.locator('.counts').textContent()).toMatch(/acme\/gadgets: 1.*acme\/widgets: 1/s);
    expect(await article(page, 'acme/gadgets', 'deploy').count()).toBe(1);
    expect(await article(page, 'acme/widgets', 'deploy').count()).toBe(1);
    await noViolations(page);
    await page.screenshot({ path: join(ARTIFACTS, 'page.png'), fullPage: true });
    if (process.env.INTERLOCK_PAGE_SCREENSHOT)
      await page.screenshot({ path: process.env.INTERLOCK_PAGE_SCREENSHOT });
    await page.emulateMedia({ colorScheme: 'dark' });
    await noViolations(page);
    await page.screenshot({ path: join(ARTIFACTS, 'page-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: join(ARTIFACTS, 'page-phone.png'), fullPage: true });
    const scrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(scrolls).toBe(false);
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.getByRole('link', { name: 'fix/issue-2' }).click();
    await page.waitForURL(/\/interlock\/run\?/);
    // The graph (named by its aria-label) and the timeline (named by its <title>).
    expect(await page.locator('svg[role="img"]').count()).toBe(2);
    expect(await page.locator('svg[role="img"][aria-label^="The graph"]').count()).toBe(1);
    expect(await page.locator('svg[role="img"] > title').count()).toBe(1);
    await noViolations(page);
    await page.screenshot({ path: join(ARTIFACTS, 'run-page.png'), fullPage: true });
    await context.close();
  }, 120_000);

  it('a read-only person sees no button, and a forged POST is 403', async () => {
    const { context, page } = await logIn(PEOPLE.reader);
    expect(await page.getByText('Read only: @rita has read permission').count()).toBe(2);
    expect(await page.getByRole('button', { name: /Approve|Settle|Fail/ }).count()).toBe(0);
    const csrf = await page.locator('input[name="csrf"]').first().getAttribute('value');
    const forged = await page.request.post(`${pw.origin}/interlock/act`, {
      form: {
        csrf: csrf!,
        form_id: 'forged',
        repo: 'acme/widgets',
        run: 'fix/issue-1',
        node: 'deploy',
        attempt: '1',
        graph_hash: pw.world.graph.hash,
        waits: 'held',
        action: 'approve-rerun',
      },
      headers: { origin: pw.origin },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    await context.close();
  }, 60_000);

  it('refuses a POST without the CSRF token, and a stale page', async () => {
    const { context, page } = await logIn(PEOPLE.writer);
    // The page's own form with its CSRF field taken out, submitted by the browser.
    const answer = page.waitForResponse((r) => r.url().endsWith('/interlock/act'));
    await page.evaluate(() => {
      const form = document.querySelector('form[action$="/act"]') as HTMLFormElement;
      form.querySelector('input[name="csrf"]')!.remove();
      form.querySelector('textarea')!.value = 'no token';
      form.submit();
    });
    expect((await answer).status()).toBe(403);
    await page.waitForURL(`${pw.origin}/interlock/act`);
    await page.goto(`${pw.origin}/interlock/`);
    // Two tabs on the same list: one approves a rerun of gadgets' deploy, the other then tries to settle it.
    const other = await context.newPage();
    await other.goto(`${pw.origin}/interlock/`);
    await article(other, 'acme/gadgets', 'deploy').getByRole('button', { name: 'Approve a rerun' }).click();
    await other.waitForURL(`${pw.origin}/interlock/`);
    const row = article(page, 'acme/gadgets', 'deploy');
    await row.getByLabel('What you checked').fill('looked at the logs');
    await row.getByRole('button', { name: 'Settle as done' }).click();
    await expect.poll(() => page.locator('.notice').textContent()).toContain('this page is out of date');
    await context.close();
  }, 60_000);

  it('approves one node with guidance: the comment and the dispatch on GitHub, and the row gone', async () => {
    const { context, page } = await logIn(PEOPLE.writer);
    const row = article(page, 'acme/widgets', 'deploy');
    await row.getByLabel('Guidance for the next attempt (optional)').fill('Roll back the schema first');
    await row.getByRole('button', { name: 'Approve a rerun' }).click();
    await page.waitForURL(`${pw.origin}/interlock/`);
    expect(await page.locator('.notice').textContent()).toContain('Done: released deploy attempt 1');
    expect(await article(page, 'acme/widgets', 'deploy').count()).toBe(0);
    const said = pw.world.repo
      .commentsOn(1)
      .map((c) => c.body)
      .find((b) => b.includes('from the interlock page by @bob'));
    expect(said).toContain('Roll back the schema first');
    expect(pw.world.repo.dispatches.length).toBeGreaterThanOrEqual(1);
    expect(pw.world.journal().events.filter((e) => e.type === 'RerunApproved')).toHaveLength(1);
    await context.close();
  }, 60_000);
});
