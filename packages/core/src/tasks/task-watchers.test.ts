import { describe, expect, it } from 'vitest';
import type { Task } from './task.ts';
import type { TaskEvent } from './task-event.ts';
import { TaskWatchers } from './task-watchers.ts';

const task = (id: string): Task => ({
  id,
  contextId: 'c1',
  agentName: 'echo',
  status: 'working',
  input: 'hi',
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  messages: [],
  artifacts: [],
  seq: 2,
});

describe('TaskWatchers', () => {
  it("tells each watcher of its own task's changes until removed", () => {
    const watchers = new TaskWatchers();
    const heard: string[] = [];
    const first = (changed: Task | undefined, events?: readonly TaskEvent[]) =>
      heard.push(`first ${changed?.id} ${events?.length}`);
    const second = (changed: Task | undefined) => heard.push(`second ${changed?.id}`);
    const working: TaskEvent[] = [{ type: 'status-update', status: 'working', timestamp: '' }];
    watchers.add('a', first);
    watchers.add('a', second);
    watchers.notify(task('a'), working);
    watchers.notify(task('b'), working);
    watchers.remove('a', first);
    watchers.notify(task('a'), []);
    watchers.remove('a', second);
    watchers.notify(task('a'), []);
    expect(heard).toEqual(['first a 1', 'second a', 'second a']);
  });

  it('ends every watcher left, and tells one added once closed at once', () => {
    const watchers = new TaskWatchers();
    const heard: Array<Task | undefined> = [];
    watchers.add('a', (changed) => heard.push(changed));
    watchers.close();
    expect(watchers.closed).toBe(true);
    watchers.endAll();
    watchers.add('b', (changed) => heard.push(changed));
    expect(heard).toEqual([undefined, undefined]);
  });
});
