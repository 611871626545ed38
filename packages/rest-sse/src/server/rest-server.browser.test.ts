import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTickerAgent } from '@agentport/core/agents';
import { serve, type TestServer } from '@agentport/http/testing';
import { Hono } from 'hono';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestServer } from './rest-server.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const PAGE = '<!doctype html><title>AgentPort SSE</title><p>ready</p>';

interface BrowserResult {
  events: { event: string; id: string; data: unknown }[];
  firstEventMs: number;
  totalMs: number;
  contentType: string | null;
}

/** Runs in the page: POSTs to the stream and parses SSE frames as they arrive. */
async function readStreamInPage(path: string): Promise<BrowserResult> {
  const started = performance.now();
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: '3 every 250ms' }),
  });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  const events: BrowserResult['events'] = [];
  let buffer = '';
  let firstEventMs = -1;
  while (reader) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const fields: Record<string, string> = {};
      for (const line of buffer.slice(0, end).split('\n')) {
        const colon = line.indexOf(': ');
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 2);
      }
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      if (fields.event === undefined) continue;
      if (firstEventMs < 0) firstEventMs = performance.now() - started;
      events.push({
        event: fields.event,
        id: fields.id ?? '',
        data: JSON.parse(fields.data ?? ''),
      });
    }
  }
  return {
    events,
    firstEventMs,
    totalMs: performance.now() - started,
    contentType: response.headers.get('content-type'),
  };
}

describe('in headless Chromium', () => {
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let userDataDirectory = '';
  let server: TestServer | undefined;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is missing at ${CHROMIUM}: install it (apt-get install -y chromium) to run the browser test`,
      );
    }
    userDataDirectory = await mkdtemp(join(tmpdir(), 'rest-sse-chromium-'));
    const rest = createRestServer().register('ticker', createTickerAgent());
    const site = new Hono().get('/', (context) => context.html(PAGE));
    site.route('/agents', rest.app);
    server = await serve(site);
    // A fresh profile per run: nothing cached or remembered from an earlier run.
    context = await chromium.launchPersistentContext(userDataDirectory, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
    });
    page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${server.url}/`);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    if (userDataDirectory !== '') await rm(userDataDirectory, { recursive: true, force: true });
  });

  it('reads the stream with fetch, event by event, as it is written', async () => {
    const result = await page?.evaluate(readStreamInPage, '/agents/ticker/stream');
    expect(result?.contentType).toBe('text/event-stream; charset=utf-8');
    expect(result?.events).toEqual([
      { event: 'text-delta', id: '3', data: { delta: 'tick 1' } },
      { event: 'text-delta', id: '4', data: { delta: '\ntick 2' } },
      { event: 'text-delta', id: '5', data: { delta: '\ntick 3' } },
      { event: 'done', id: '6', data: { output: 'tick 1\ntick 2\ntick 3' } },
    ]);
    // The first tick reached the page at least a tick (250 ms) before the stream ended, the ticker
    // taking 500 ms: relative to the end, so a slow start of the fetch on a loaded machine
    // (309 ms once in CI) does not count.
    expect(result?.totalMs).toBeGreaterThanOrEqual(490);
    expect(result?.firstEventMs).toBeLessThan((result?.totalMs ?? 0) - 240);
  });
});
