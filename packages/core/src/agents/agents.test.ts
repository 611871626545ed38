import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../agent-event.ts';
import { createAssistantAgent } from './assistant.ts';
import { evaluateExpression } from './calculator.ts';
import { createEchoAgent } from './echo.ts';
import { createTickerAgent, parseTickerInput } from './ticker.ts';

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const fixedNow = () => new Date('2026-11-22T10:00:00.000Z');

describe('echo', () => {
  it('streams its input back word by word, keeping whitespace', async () => {
    const events = await collect(createEchoAgent().stream('hello  big\nworld'));
    expect(events).toEqual([
      { type: 'text-delta', delta: 'hello' },
      { type: 'text-delta', delta: '  big' },
      { type: 'text-delta', delta: '\nworld' },
      { type: 'done', output: 'hello  big\nworld' },
    ]);
  });

  it('answers empty input with empty output', async () => {
    await expect(createEchoAgent().invoke('')).resolves.toBe('');
  });

  it('lets other work run while it streams a long input', async () => {
    // 1 MB of words: a run of several milliseconds, which gives the event loop turns.
    const input = Array.from({ length: 200_000 }, (_, index) => `w${index}`).join(' ');
    let otherRan = false;
    setImmediate(() => {
      otherRan = true;
    });
    let seenAtEnd = false;
    for await (const event of createEchoAgent().stream(input)) {
      if (event.type === 'done') {
        seenAtEnd = otherRan;
        expect(event.output).toBe(input);
      }
    }
    expect(seenAtEnd).toBe(true);
  });
});

describe('ticker', () => {
  it('streams tick 1 to tick N', async () => {
    const events = await collect(createTickerAgent().stream('3 every 1ms'));
    expect(events).toEqual([
      { type: 'text-delta', delta: 'tick 1' },
      { type: 'text-delta', delta: '\ntick 2' },
      { type: 'text-delta', delta: '\ntick 3' },
      { type: 'done', output: 'tick 1\ntick 2\ntick 3' },
    ]);
  });

  it('stops at once when its signal aborts', async () => {
    const controller = new AbortController();
    const seen: AgentEvent[] = [];
    const started = Date.now();
    for await (const event of createTickerAgent().stream('100 every 1s', {
      signal: controller.signal,
    })) {
      seen.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(Date.now() - started).toBeLessThan(500);
    expect(seen).toEqual([
      { type: 'text-delta', delta: 'tick 1' },
      { type: 'error', code: 'canceled', message: 'The run was canceled' },
    ]);
  });

  it.each([
    ['5', { count: 5, intervalMs: 500 }],
    ['20 every 250ms', { count: 20, intervalMs: 250 }],
    ['every 2s', { count: 5, intervalMs: 2000 }],
    ['', { count: 5, intervalMs: 500 }],
  ])('parses %j', (input, plan) => {
    expect(parseTickerInput(input)).toEqual(plan);
  });

  it.each(['abc', '0', '100000', '3 every 5m', '3 every 61s'])('rejects %j', (input) => {
    expect(() => parseTickerInput(input)).toThrow(/Tick|Ticker/);
  });

  it('takes input around spaces, and refuses runs longer than 10 minutes', () => {
    expect(parseTickerInput('  20 every 250ms \n')).toEqual({ count: 20, intervalMs: 250 });
    expect(parseTickerInput('10000 every 60ms')).toEqual({ count: 10_000, intervalMs: 60 });
    expect(() => parseTickerInput('10000 every 60s')).toThrow(/within 10 minutes/);
  });

  it('refuses a long run of spaces at once, without echoing it whole', () => {
    // The earlier pattern backtracked cubically on this: 3,000 spaces blocked a server 20 s.
    const input = `${' '.repeat(100_000)}x`;
    expect(() => parseTickerInput(input)).toThrow(/got '\s*x'$/);
    expect(() => parseTickerInput(`5 ${'y'.repeat(1_000)}`)).toThrow(/got '5 y{38}\.\.\.'$/);
  });
});

describe('calculator', () => {
  it.each([
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['-3 + 5', 2],
    ['2 ^ 3 ^ 2', 512],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['1.5e2 - .5', 149.5],
    ['--2', 2],
  ])('evaluates %s = %d', (expression, result) => {
    expect(evaluateExpression(expression)).toBe(result);
  });

  it.each([
    ['1 / 0', /Division by zero/],
    ['2 +', /end of expression/],
    ['(1 + 2', /Expected '\)'/],
    ['1 2', /Unexpected '2'/],
    ['process.exit()', /Unexpected character/],
    ['', /Empty/],
    [`${'('.repeat(100)}1${')'.repeat(100)}`, /nested too deeply/],
    ['9 ^ 999', /finite/],
  ])('rejects %s', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(message);
  });
});

describe('assistant', () => {
  const assistant = createAssistantAgent({ now: fixedNow });

  it('answers arithmetic through the calculator tool', async () => {
    const events = await collect(assistant.stream('What is 2 + 3 * 4?'));
    expect(events).toMatchObject([
      { type: 'tool-call', name: 'calculator', input: { expression: '2 + 3 * 4' } },
      { type: 'tool-result', name: 'calculator', output: { expression: '2 + 3 * 4', result: 14 } },
      { type: 'text-delta', delta: '2 + 3 * 4 = 14' },
      { type: 'done', output: '2 + 3 * 4 = 14' },
    ]);
  });

  it('tells the UTC time through the clock tool', async () => {
    const events = await collect(assistant.stream('what time is it'));
    expect(events).toMatchObject([
      { type: 'tool-call', name: 'clock', input: {} },
      { type: 'tool-result', name: 'clock', output: { utc: '2026-11-22T10:00:00.000Z' } },
      { type: 'text-delta' },
      { type: 'done', output: 'The current UTC time is 2026-11-22T10:00:00.000Z' },
    ]);
  });

  it('counts words through the word_count tool', async () => {
    const events = await collect(assistant.stream('count the words in: the quick brown fox'));
    expect(events).toMatchObject([
      { type: 'tool-call', name: 'word_count', input: { text: 'the quick brown fox' } },
      { type: 'tool-result', name: 'word_count', output: { words: 4 } },
      { type: 'text-delta', delta: '4 words' },
      { type: 'done', output: '4 words' },
    ]);
  });

  it('hands off to echo when asked to repeat something', async () => {
    const events = await collect(assistant.stream('repeat after me: hello there'));
    expect(events).toEqual([
      { type: 'handoff', from: 'assistant', to: 'echo' },
      { type: 'text-delta', delta: 'hello' },
      { type: 'text-delta', delta: ' there' },
      { type: 'done', output: 'hello there' },
    ]);
  });

  it('reads long inputs in linear time: spaces before a mark, repeated requests', async () => {
    // Each took the earlier patterns minutes (quadratic): 40,000 spaces blocked a server 8.7 s.
    await expect(assistant.invoke(`${' '.repeat(200_000)}x`)).resolves.toMatch(/^I can do/);
    await expect(assistant.invoke(`what is 2 + 2${' '.repeat(200_000)}?`)).resolves.toBe(
      '2 + 2 = 4',
    );
    await expect(assistant.invoke('word count '.repeat(50_000))).resolves.toMatch(/^I can do/);
    await expect(assistant.invoke(`${'word count '.repeat(50_000)}in: a b c`)).resolves.toBe(
      '3 words',
    );
  });

  it('explains what it can do otherwise', async () => {
    await expect(assistant.invoke('hi')).resolves.toMatch(/^I can do arithmetic/);
  });

  it('fails with the calculator error on division by zero', async () => {
    await expect(assistant.invoke('what is 1/0')).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'Division by zero',
    });
  });

  it('describes its tools and handoffs', () => {
    expect(assistant.tools.map((tool) => tool.name)).toEqual(['calculator', 'clock', 'word_count']);
    expect(assistant.handoffs.map((agent) => agent.name)).toEqual(['echo']);
    for (const tool of assistant.tools) expect(tool.parameters).toMatchObject({ type: 'object' });
  });
});
