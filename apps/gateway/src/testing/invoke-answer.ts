import { expect } from 'vitest';

/** The REST invoke answer of a turn that completed with `result`, in a conversation of its own. */
export function completed(result: string): Record<string, unknown> {
  return { result, contextId: expect.any(String), status: 'completed' };
}
