import { describe, expect, it } from 'vitest';
import type { Task } from './task.ts';
import { TaskWatchers } from './task-watchers.ts';

const task = (id: string): Task => ({
  id,
  agentName: 'echo',
  status: 'working',
  input: 'hi',
  metadata: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('TaskWatchers', () => {
  it("tells each watcher of its own task's changes until removed", () => {
    const watchers = new TaskWatchers();
    const heard: string[] = [];
    const first = (changed: Task | undefined) => heard.push(`first ${changed?.id}`);
    const second = (changed: Task | undefined) => heard.push(`second ${changed?.id}`);
    watchers.add('a', first);
    watchers.add('a', second);
    watchers.notify(task('a'));
    watchers.notify(task('b'));
    watchers.remove('a', first);
    watchers.notify(task('a'));
    watchers.remove('a', second);
    watchers.notify(task('a'));
    expect(heard).toEqual(['first a', 'second a', 'second a']);
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
