import { describe, expect, it } from 'vitest';
import { parseSelection, SCENARIO_GROUPS } from './selection.ts';

describe('parseSelection', () => {
  it('runs every group, on every server, when no group is named', () => {
    const selection = parseSelection(['--quick']);
    expect([...selection.groups]).toEqual([...SCENARIO_GROUPS]);
    expect(selection.complete).toBe(true);
    expect(selection.servers).toEqual([
      'raw',
      'hono',
      'gateway',
      'sdk-express',
      'gateway-message',
      'gateway-ai-sdk',
      'ai-sdk-hono',
      'mastra-hono',
      'sdk-express-postgres',
      'gateway-postgres',
    ]);
  });

  it('runs only the named groups and starts only their servers', () => {
    const selection = parseSelection(['--only', 'adapters']);
    expect([...selection.groups]).toEqual(['adapters']);
    expect(selection.complete).toBe(false);
    expect(selection.servers).toEqual(['gateway-ai-sdk', 'ai-sdk-hono', 'mastra-hono']);
  });

  it('takes a comma list after an equals sign, in the run order whatever the order named', () => {
    const selection = parseSelection(['--only=sse,invoke']);
    expect([...selection.groups]).toEqual(['invoke', 'sse']);
    expect(selection.servers).toEqual(['raw', 'hono', 'gateway']);
  });

  it('refuses an unknown group, naming the known ones', () => {
    expect(() => parseSelection(['--only', 'adaptors'])).toThrow(
      /unknown scenario group 'adaptors' \(invoke, send, sse, stream, remote, idle, adapters, postgres, cold-start\)/,
    );
  });

  it('refuses --only without a group', () => {
    expect(() => parseSelection(['--only'])).toThrow(/--only takes groups/);
  });
});
