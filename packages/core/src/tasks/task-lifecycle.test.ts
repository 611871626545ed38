import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../errors/invalid-transition-error.ts';
import {
  assertTransition,
  canTransition,
  isInterruptedStatus,
  isTerminalStatus,
  TASK_STATUSES,
  type TaskStatus,
  UNFINISHED_STATUSES,
} from './task-lifecycle.ts';

/** Every legal move, written out by hand (not derived from the table under test). */
const LEGAL: ReadonlyArray<readonly [TaskStatus, TaskStatus]> = [
  ['submitted', 'working'],
  ['submitted', 'canceled'],
  ['submitted', 'rejected'],
  ['submitted', 'failed'],
  ['working', 'input-required'],
  ['working', 'auth-required'],
  ['working', 'completed'],
  ['working', 'failed'],
  ['working', 'canceled'],
  ['working', 'rejected'],
  ['input-required', 'working'],
  ['input-required', 'canceled'],
  ['input-required', 'failed'],
  ['auth-required', 'working'],
  ['auth-required', 'canceled'],
  ['auth-required', 'failed'],
];

const ALL = TASK_STATUSES.flatMap((from) => TASK_STATUSES.map((to) => [from, to] as const));
const ILLEGAL = ALL.filter(([from, to]) => !LEGAL.some(([a, b]) => a === from && b === to));

describe('task lifecycle', () => {
  it("has A2A's eight states, as A2A spells them", () => {
    expect(TASK_STATUSES).toEqual([
      'submitted',
      'working',
      'input-required',
      'auth-required',
      'completed',
      'failed',
      'canceled',
      'rejected',
    ]);
  });

  it.each(LEGAL)('allows %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it.each(ILLEGAL)('rejects %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(() => assertTransition(from, to)).toThrow(InvalidTransitionError);
  });

  it('covers all 64 pairs of statuses, staying put included', () => {
    expect(ALL).toHaveLength(64);
    expect(LEGAL.length + ILLEGAL.length).toBe(64);
    expect(ILLEGAL.filter(([from, to]) => from === to)).toHaveLength(8);
  });

  it('treats completed, failed, canceled and rejected as terminal: none of them moves again', () => {
    expect(TASK_STATUSES.filter(isTerminalStatus)).toEqual([
      'completed',
      'failed',
      'canceled',
      'rejected',
    ]);
    for (const from of TASK_STATUSES.filter(isTerminalStatus)) {
      expect(TASK_STATUSES.filter((to) => canTransition(from, to))).toEqual([]);
    }
  });

  it('treats input-required and auth-required as interrupted, and every other unfinished one not', () => {
    expect(TASK_STATUSES.filter(isInterruptedStatus)).toEqual(['input-required', 'auth-required']);
    expect(UNFINISHED_STATUSES).toEqual([
      'submitted',
      'working',
      'input-required',
      'auth-required',
    ]);
    expect(Object.isFrozen(UNFINISHED_STATUSES)).toBe(true);
  });

  it('says which move was refused', () => {
    expect(() => assertTransition('completed', 'working')).toThrow(
      expect.objectContaining({ code: 'invalid_transition', from: 'completed', to: 'working' }),
    );
  });
});
