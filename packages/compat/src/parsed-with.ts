import * as z from 'zod';

/** Parses `value` with `schema` inside a transform, its issues kept with their paths. */
export function parsedWith<T>(schema: z.ZodType<T>, value: unknown, context: z.RefinementCtx): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    context.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: value });
  }
  return z.NEVER;
}
