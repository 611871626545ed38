import { isBase64, type Message, type Part } from '@agentport/core';
import { randomUuid } from '@agentport/core/internal';
import * as z from 'zod';
import { parsedWith } from './parsed-with.ts';

// A run's `input` as a list of Responses-API-style input items (the shapes the OpenAI Agents SDK
// sends), mapped to core's messages and parts. Only message items are taken: a function call or
// its output is the SDK's own loop, which an AgentPort agent runs itself.

/** Text the caller wrote: `{ type: 'input_text', text }`. */
export interface InputTextContent {
  type: 'input_text';
  text: string;
}

/** Text an assistant wrote: `{ type: 'output_text', text }`. */
export interface OutputTextContent {
  type: 'output_text';
  text: string;
}

/** An assistant's refusal, kept as its text: `{ type: 'refusal', refusal }`. */
export interface RefusalContent {
  type: 'refusal';
  refusal: string;
}

/**
 * An image by URL or as a base64 `data:` URL: `image_url` (the Responses API's name) or `image`
 * (the Agents SDK's); `detail` is accepted and not used.
 */
export interface InputImageContent {
  type: 'input_image';
  image_url?: string;
  image?: string;
  detail?: string;
}

/**
 * A file: `file_data` (base64, or a base64 `data:` URL), `file_url`, or the Agents SDK's `file`
 * (a URL, a `data:` URL or `{ url }`), with an optional `filename`.
 */
export interface InputFileContent {
  type: 'input_file';
  file_data?: string;
  file_url?: string;
  file?: string | { url: string };
  filename?: string;
}

/** One content part of an input item. */
export type InputContent =
  | InputTextContent
  | OutputTextContent
  | RefusalContent
  | InputImageContent
  | InputFileContent;

/**
 * A message item: `{ type?: 'message', role, content }`, the content a string or a list of
 * content parts; `id` and `status` are accepted and not used.
 */
export interface InputMessageItem {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | InputContent[];
  id?: string;
  status?: string;
}

/** One item of a run's `input` list (only message items are taken). */
export type InputItem = InputMessageItem;

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
const FILE_TYPES: Readonly<Record<string, string>> = {
  ...IMAGE_TYPES,
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
};
const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;

/** The media type a name's extension says (a URL's path or a filename), if one is known. */
function mediaTypeByName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const path = name.split(/[?#]/, 1)[0] ?? '';
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : FILE_TYPES[path.slice(dot + 1).toLowerCase()];
}

type Source = { url: string } | { bytes: string; mediaType?: string };

/** A `data:` URL's bytes and media type, or undefined (an issue added) when it is not base64. */
function dataUrlSource(value: string, context: z.RefinementCtx, field: string): Source | undefined {
  const match = DATA_URL.exec(value);
  const bytes = match?.[3] ?? '';
  if (match === null || !/;base64$/i.test(match[2] ?? '') || !isBase64(bytes)) {
    context.addIssue({
      code: 'custom',
      message: 'must be a base64 data: URL (data:<media type>;base64,<data>)',
      path: [field],
      input: value,
    });
    return undefined;
  }
  return match[1] ? { bytes, mediaType: match[1] } : { bytes };
}

/** A URL or `data:` URL field's source; `base64` allows bare base64 (`file_data`). */
function sourceOf(
  value: string,
  context: z.RefinementCtx,
  field: string,
  base64 = false,
): Source | undefined {
  if (value.startsWith('data:')) return dataUrlSource(value, context, field);
  if (base64) {
    if (isBase64(value)) return { bytes: value };
    context.addIssue({
      code: 'custom',
      message: 'must be standard base64 (padded, no whitespace) or a base64 data: URL',
      path: [field],
      input: value,
    });
    return undefined;
  }
  if (z.url().safeParse(value).success) return { url: value };
  context.addIssue({
    code: 'custom',
    message: 'must be a URL or a base64 data: URL',
    path: [field],
    input: value,
  });
  return undefined;
}

/** A core file part of a source, its media type from the data URL, the name, or `fallback`. */
function filePart(source: Source, name: string | undefined, fallback: string): Part {
  const byName =
    mediaTypeByName(name) ?? ('url' in source ? mediaTypeByName(source.url) : undefined);
  const mediaType = ('mediaType' in source ? source.mediaType : undefined) ?? byName ?? fallback;
  const named = name === undefined ? {} : { name };
  if ('url' in source) return { kind: 'file', mediaType, ...named, url: source.url };
  return { kind: 'file', mediaType, ...named, bytes: source.bytes };
}

const fileIdIssue = 'file ids are not supported here: send the URL or the data';

const imageSchema = z.object({
  type: z.literal('input_image'),
  image_url: z.string().optional(),
  image: z.union([z.string(), z.object({ id: z.string() })]).optional(),
  file_id: z.string().optional(),
  detail: z.string().optional(),
});

function imagePart(value: z.infer<typeof imageSchema>, context: z.RefinementCtx): Part {
  if (value.file_id !== undefined || typeof value.image === 'object') {
    const path = [value.file_id === undefined ? 'image' : 'file_id'];
    context.addIssue({ code: 'custom', message: fileIdIssue, path, input: value });
    return z.NEVER;
  }
  const field = value.image_url === undefined ? 'image' : 'image_url';
  const url = value.image_url ?? value.image;
  if (url === undefined) {
    const message = 'an input_image needs an image_url';
    context.addIssue({ code: 'custom', message, path: ['image_url'], input: value });
    return z.NEVER;
  }
  const source = sourceOf(url, context, field);
  return source === undefined ? z.NEVER : filePart(source, undefined, 'image/*');
}

const fileSchema = z.object({
  type: z.literal('input_file'),
  file_data: z.string().optional(),
  file_url: z.string().optional(),
  file: z
    .union([z.string(), z.object({ url: z.string() }), z.object({ id: z.string() })])
    .optional(),
  file_id: z.string().optional(),
  filename: z.string().optional(),
});

function inputFilePart(value: z.infer<typeof fileSchema>, context: z.RefinementCtx): Part {
  const { file } = value;
  if (value.file_id !== undefined || (typeof file === 'object' && 'id' in file)) {
    const path = [value.file_id === undefined ? 'file' : 'file_id'];
    context.addIssue({ code: 'custom', message: fileIdIssue, path, input: value });
    return z.NEVER;
  }
  const given = [
    value.file_data === undefined ? undefined : (['file_data', value.file_data] as const),
    value.file_url === undefined ? undefined : (['file_url', value.file_url] as const),
    file === undefined
      ? undefined
      : (['file', typeof file === 'string' ? file : file.url] as const),
  ].filter((entry) => entry !== undefined);
  const [first] = given;
  if (first === undefined || given.length > 1) {
    const message = 'an input_file needs exactly one of file_data, file_url or file';
    context.addIssue({ code: 'custom', message, path: [], input: value });
    return z.NEVER;
  }
  const source = sourceOf(first[1], context, first[0], first[0] === 'file_data');
  return source === undefined
    ? z.NEVER
    : filePart(source, value.filename, 'application/octet-stream');
}

/** Each content type's schema and its core part. */
const CONTENT: Readonly<
  Record<string, (value: unknown, context: z.RefinementCtx) => Part | typeof z.NEVER>
> = {
  input_text: (value, context) => textPart(value, context, 'input_text', 'text'),
  output_text: (value, context) => textPart(value, context, 'output_text', 'text'),
  refusal: (value, context) => textPart(value, context, 'refusal', 'refusal'),
  input_image: (value, context) => {
    const image = parsedWith(imageSchema, value, context);
    return image === z.NEVER ? z.NEVER : imagePart(image, context);
  },
  input_file: (value, context) => {
    const file = parsedWith(fileSchema, value, context);
    return file === z.NEVER ? z.NEVER : inputFilePart(file, context);
  },
};
const CONTENT_TYPES = Object.keys(CONTENT)
  .map((type) => `'${type}'`)
  .join(', ');

function textPart(
  value: unknown,
  context: z.RefinementCtx,
  type: string,
  field: 'text' | 'refusal',
): Part {
  const schema = z.object({
    type: z.literal(type),
    [field]: z.string({ error: 'must be a string' }),
  });
  const parsed = parsedWith(schema, value, context) as Record<string, string> | typeof z.NEVER;
  return parsed === z.NEVER ? z.NEVER : { kind: 'text', text: parsed[field] as string };
}

/** One content part as a core part; an unknown `type` is named. */
const contentSchema = z.unknown().transform((value, context): Part => {
  const isObject = typeof value === 'object' && value !== null;
  const type = isObject ? (value as { type?: unknown }).type : undefined;
  const map = typeof type === 'string' && Object.hasOwn(CONTENT, type) ? CONTENT[type] : undefined;
  if (map === undefined) {
    const message = isObject ? `type must be one of ${CONTENT_TYPES}` : 'must be an object';
    context.addIssue({ code: 'custom', message, path: isObject ? ['type'] : [], input: value });
    return z.NEVER;
  }
  return map(value, context);
});

const textContentSchema = z.string().min(1, 'must not be empty');
const contentListSchema = z.array(contentSchema).min(1, 'must have at least one content part');

const messageItemSchema = z.object({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer'], {
    error: "must be 'user', 'assistant', 'system' or 'developer'",
  }),
  content: z.unknown().transform((value, context): string | Part[] => {
    if (typeof value === 'string') return parsedWith(textContentSchema, value, context);
    if (Array.isArray(value)) return parsedWith(contentListSchema, value, context);
    const message = 'must be a string or a list of content parts';
    context.addIssue({ code: 'custom', message, path: [], input: value });
    return z.NEVER;
  }),
});

/**
 * One input item as a core message: `assistant` is the agent's, `user`, `system` and
 * `developer` are the caller's (core has those two roles).
 */
const itemSchema = z.unknown().transform((value, context): Message => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    context.addIssue({ code: 'custom', message: 'must be an object', path: [], input: value });
    return z.NEVER;
  }
  const type = (value as { type?: unknown }).type;
  if (type !== undefined && type !== 'message') {
    const message = "type must be 'message' (other input items are not supported)";
    context.addIssue({ code: 'custom', message, path: ['type'], input: value });
    return z.NEVER;
  }
  const item = parsedWith(messageItemSchema, value, context);
  if (item === z.NEVER) return z.NEVER;
  const parts: Part[] =
    typeof item.content === 'string' ? [{ kind: 'text', text: item.content }] : item.content;
  return { messageId: randomUuid(), role: item.role === 'assistant' ? 'agent' : 'user', parts };
});

/** A list of input items: at least one, the last a `user` message (the run's new message). */
export const inputItemsSchema = z
  .array(itemSchema)
  .min(1, 'must have at least one input item')
  .superRefine((messages, context) => {
    const last = messages.length - 1;
    if (messages[last]?.role === 'user') return;
    context.addIssue({
      code: 'custom',
      message: 'the last input item must be a user message (the new message)',
      path: [last, 'role'],
      input: messages,
    });
  });

/** What documents an input item list (the mapping runs in transforms, which JSON Schema cannot show). */
export const documentedInputItems = z
  .array(
    z.object({
      type: z.literal('message').optional(),
      role: z.enum(['user', 'assistant', 'system', 'developer']),
      content: z.union([
        z.string(),
        z.array(
          z.union([
            z.object({ type: z.literal('input_text'), text: z.string() }),
            z.object({ type: z.literal('output_text'), text: z.string() }),
            z.object({ type: z.literal('refusal'), refusal: z.string() }),
            z.object({
              type: z.literal('input_image'),
              image_url: z.string().optional(),
              image: z.string().optional(),
              detail: z.string().optional(),
            }),
            z.object({
              type: z.literal('input_file'),
              file_data: z.string().optional(),
              file_url: z.string().optional(),
              file: z.union([z.string(), z.object({ url: z.string() })]).optional(),
              filename: z.string().optional(),
            }),
          ]),
        ),
      ]),
    }),
  )
  .min(1);
