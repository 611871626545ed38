import { STATE_HEADERS_KEY } from '@a2a-js/sdk/server';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AbortableCallContext, onCallerGone } from '../handler/abortable-call-context.ts';
import { buildCallContext, lazyObject, noAuthentication } from './call-context.ts';

describe('buildCallContext', () => {
  it('carries the request headers in its state, as the Express adapters do', async () => {
    const app = new Hono().post('/', async (context) => {
      const callContext = await buildCallContext(context, { userBuilder: noAuthentication });
      const headers = callContext.state.get(STATE_HEADERS_KEY) as Record<string, string>;
      return context.json({ test: headers['x-test'], keys: Object.keys(headers).sort() });
    });
    const response = await app.request('/', { method: 'POST', headers: { 'X-Test': 'yes' } });
    expect(await response.json()).toEqual({ test: 'yes', keys: ['x-test'] });
  });
});

describe('AbortableCallContext', () => {
  it('tells of the caller going away from its signal when built without a listener hook', () => {
    const controller = new AbortController();
    const context = new AbortableCallContext({}, () => controller.signal);
    const gone: string[] = [];
    onCallerGone(context, () => gone.push('gone'));
    controller.abort();
    controller.abort();
    expect(gone).toEqual(['gone']);
  });

  it('uses the hook it was given instead, when there is one', () => {
    const listeners: Array<() => void> = [];
    const context = new AbortableCallContext(
      {},
      () => new AbortController().signal,
      (listener) => listeners.push(listener),
    );
    let gone = false;
    onCallerGone(context, () => {
      gone = true;
    });
    listeners[0]?.();
    expect(gone).toBe(true);
  });
});

describe('lazyObject', () => {
  it('reads its properties only when something looks at them, once', () => {
    let reads = 0;
    const object = lazyObject(() => {
      reads += 1;
      return { a: '1', b: '2' } as Record<string, string>;
    });
    expect(reads).toBe(0);
    expect(object.a).toBe('1');
    expect('b' in object).toBe(true);
    expect(Object.keys(object)).toEqual(['a', 'b']);
    expect({ ...object }).toEqual({ a: '1', b: '2' });
    expect(reads).toBe(1);
  });
});
