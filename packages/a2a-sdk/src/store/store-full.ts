import { A2AError } from '@a2a-js/sdk/errors';
import { TaskStoreFullError } from '@agentport/core';

/**
 * The refusal of a new unfinished task by a store full of unfinished ones, as the SDK surface
 * says it: core's message, its code in the error's metadata.
 */
export function storeFullError(): A2AError {
  const { code, message } = new TaskStoreFullError();
  return new A2AError({ message, metadata: { code } });
}
