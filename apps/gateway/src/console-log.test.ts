import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { routeConsoleToLog } from './console-log.ts';
import { collectLines } from './testing/log-lines.ts';

const originalWarn = console.warn;

afterEach(() => {
  console.warn = originalWarn;
});

describe('routeConsoleToLog', () => {
  it('logs console output as one JSON line each, at its level, so caller text forges no line', () => {
    const { lines, destination } = collectLines();
    const restore = routeConsoleToLog(pino({ base: undefined, level: 'debug' }, destination));
    const forged = 'x\n{"level":30,"msg":"request","path":"/admin"}';
    console.warn(`Reference task ${forged} not found.`);
    console.error('failed for %s:', 'm-1', new Error('boom'));
    console.log('plain');
    console.debug('detail');
    restore();
    expect(console.warn).toBe(originalWarn);
    expect(lines).toHaveLength(4);
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries).toMatchObject([
      { level: 40, source: 'console', msg: `Reference task ${forged} not found.` },
      {
        level: 50,
        source: 'console',
        msg: expect.stringMatching(/^failed for m-1: Error: boom\n/),
      },
      { level: 30, source: 'console', msg: 'plain' },
      { level: 20, source: 'console', msg: 'detail' },
    ]);
  });

  it('leaves out what is under the level, as the rest of the log', () => {
    const { lines, destination } = collectLines();
    const restore = routeConsoleToLog(pino({ level: 'error' }, destination));
    console.warn('quiet');
    restore();
    expect(lines).toEqual([]);
  });
});
