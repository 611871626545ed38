import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../errors/invalid-transition-error.ts';
import {
  assertTransition,
  canTransition,
  isTerminalStatus,
  TASK_STATUSES,
  type TaskStatus,
} from './task.ts';

const LEGAL: ReadonlyArray<[TaskStatus, TaskStatus]> = [
  ['submitted', 'working'],
  ['submitted', 'canceled'],
  ['working', 'completed'],
  ['working', 'failed'],
  ['working', 'canceled'],
];

const ALL = TASK_STATUSES.flatMap((from) => TASK_STATUSES.map((to) => [from, to] as const));
const ILLEGAL = ALL.filter(([from, to]) => !LEGAL.some(([a, b]) => a === from && b === to));

describe('task lifecycle', () => {
  it('has exactly the five statuses', () => {
    expect(TASK_STATUSES).toEqual(['submitted', 'working', 'completed', 'failed', 'canceled']);
  });

  it.each(LEGAL)('allows %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it.each(ILLEGAL)('rejects %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(() => assertTransition(from, to)).toThrow(InvalidTransitionError);
  });

  it('treats completed, failed and canceled as terminal', () => {
    expect(TASK_STATUSES.filter(isTerminalStatus)).toEqual(['completed', 'failed', 'canceled']);
  });

  it('covers all 25 moves between the statuses', () => {
    expect(LEGAL.length + ILLEGAL.length).toBe(25);
  });
});
