import { RequestMalformedError } from '@a2a-js/sdk/errors';

/**
 * The error of a `historyLength` (of GetTask, ListTasks or a send's configuration) that is there
 * but not a non-negative integer, with the messages of the SDK's HTTP+JSON query parser; undefined
 * when it is absent or valid. The SDK's handler would take it as it is: a negative one as 0, a
 * fraction or a v0.3 string as a `slice` bound. The v1.0 decoder has made a number of it already
 * (ProtoJSON, where an int32 may come as a string); the v0.3 converter passes it on untouched.
 */
export function historyLengthError(value: unknown): RequestMalformedError | undefined {
  if (value === undefined || (Number.isInteger(value) && (value as number) >= 0)) return undefined;
  return new RequestMalformedError(
    Number.isInteger(value)
      ? 'historyLength must be non-negative'
      : 'historyLength must be a valid integer',
  );
}
