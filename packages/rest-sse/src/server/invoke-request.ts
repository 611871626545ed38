import * as z from 'zod';

/** The body of `POST /{name}/invoke` and `POST /{name}/stream`: `{ "input": string }`. */
export const invokeRequestSchema = z.object(
  {
    input: z
      .string({
        error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string'),
      })
      .min(1, 'must not be empty'),
  },
  { error: 'must be a JSON object with an input string' },
);
