import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as agents from './agents/index.ts';
import * as root from './index.ts';
import * as internal from './internal/index.ts';
import { assertExportsDocumented } from './testing/exports-documented.ts';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));

describe('exports', () => {
  it('documents every name of every public entry point in the README API section', async () => {
    await expect(assertExportsDocumented(packageDirectory)).resolves.toBeUndefined();
  });

  it('keeps the performance machinery and the surfaces-only helpers off the root', () => {
    const moved = [
      'randomUuid',
      'pacedEvents',
      'linkSignals',
      'checkedOutput',
      'errorFromEvent',
      'toAgentFailure',
      'remoteTaskError',
      'nestsWithin',
      'jsonWeight',
    ];
    for (const name of moved) {
      expect(Object.keys(root)).not.toContain(name);
      expect(Object.keys(internal)).toContain(name);
    }
  });

  it('exports the agent contract, the runner and the errors from the root', () => {
    expect(Object.keys(root)).toEqual(
      expect.arrayContaining(['defineAgent', 'defineTool', 'createTaskRunner', 'AgentPortError']),
    );
    expect(Object.keys(agents)).toContain('createEchoAgent');
  });
});
