import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { NodeRouteHandler } from './node-answer.ts';
import { createNodeRouter } from './node-router.ts';

const request = {} as IncomingMessage;
const response = {} as ServerResponse;

/** A mount that records the paths it was given and takes those `takes` accepts. */
function recorder(
  name: string,
  seen: string[],
  takes: (path: string) => boolean,
): NodeRouteHandler {
  return (_request, _response, path) => {
    seen.push(`${name} ${path}`);
    return takes(path ?? '');
  };
}

describe('createNodeRouter', () => {
  it('tries the longest matching prefix first, then shorter ones, down to the root', () => {
    const seen: string[] = [];
    const route = createNodeRouter({
      mounts: [
        { prefix: '', handleNode: recorder('root', seen, (path) => path.startsWith('/tasks')) },
        {
          prefix: '/agents',
          handleNode: recorder('rest', seen, (path) => path.endsWith('/invoke')),
        },
        { prefix: '/agents/echo', handleNode: recorder('echo', seen, (path) => path === '/tasks') },
      ],
    });
    expect(route(request, response, '/agents/echo/tasks')).toBe(true);
    expect(route(request, response, '/agents/echo/invoke?x=1')).toBe(false);
    expect(route(request, response, '/agents/echo/invoke')).toBe(true);
    expect(route(request, response, '/tasks?wait=5')).toBe(true);
    expect(route(request, response, '/nothing/here')).toBe(false);
    expect(seen).toEqual([
      'echo /tasks',
      'echo /invoke?x=1',
      'rest /echo/invoke?x=1',
      'root /agents/echo/invoke?x=1',
      'echo /invoke',
      'rest /echo/invoke',
      'root /tasks?wait=5',
      'root /nothing/here',
    ]);
  });

  it('matches whole segments only, and gives a mount its own root as /', () => {
    const seen: string[] = [];
    const route = createNodeRouter({
      mounts: [{ prefix: '/agents/', handleNode: recorder('agents', seen, () => false) }],
    });
    route(request, response, '/agentsx/echo');
    route(request, response, '/agents');
    route(request, response, '/agents?x=1');
    route(request, response, '/agents/echo');
    expect(seen).toEqual(['agents /', 'agents /?x=1', 'agents /echo']);
  });
});
