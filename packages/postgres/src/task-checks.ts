import { InvalidInputError, type NewTask } from '@agentport/core';
import { assertMessages } from '@agentport/core/internal';

// The checks of a patch and of a new task's context, retention and status are core's (its
// `./internal`), the memory store's own: the two stores refuse the same values the same way.
export {
  assertPatch,
  assertProgress,
  changesAnything,
  contextIdOf,
  retentionOf,
  startsWorking,
} from '@agentport/core/internal';

/** Refuses a new task without a string id, agent name and input. */
export function assertNewTask(input: NewTask): void {
  for (const field of ['id', 'agentName', 'input'] as const) {
    if (typeof input[field] !== 'string' || (field !== 'input' && input[field] === '')) {
      throw new InvalidInputError(`${field} must be a non-empty string`, { field });
    }
  }
  const { metadata } = input;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new InvalidInputError('metadata must be an object', { field: 'metadata' });
  }
  assertMessages(input.messages);
}
